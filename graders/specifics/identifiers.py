"""Reference codes, web addresses and file names: "PELICAN-417", "example.org/path",
"figures.txt", "verify?question=". Each names one thing exactly, so a claim carrying one the
span never states is about something the span does not mention."""

from __future__ import annotations

import re

from spanproof.graders.specifics import lexicon

_IDENTIFIER_RE = re.compile(
    r"(?<![\w-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![\w-])"  # all-caps hyphenated codes
    r"|(?<![\w@/.-])(?:https?://)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:[a-z]{2,10})(?:/[\w?=&%./-]*)?(?![\w])"
    r"|(?<![\w/])[\w-]+\?[\w-]+=[\w-]*"  # a query string
)
_NOT_A_DOMAIN_END = lexicon.words("not_a_domain_end")
_ADDRESS_ENDINGS = lexicon.words("address_endings")


def _may_hold_identifier(text: str) -> bool:
    """Whether _IDENTIFIER_RE can match: a code holds a hyphen, a query string a "?", an
    address or file name a period right before its lower-case ending (most claims hold none:
    their only period ends them)."""
    if "-" in text or "?" in text:
        return True
    at = text.find(".")
    while at >= 0:
        if "a" <= text[at + 1 : at + 2] <= "z":
            return True
        at = text.find(".", at + 1)
    return False


def identifiers(text: str) -> list[str]:
    """Reference codes, addresses and file names in the text."""
    out: list[str] = []
    if not _may_hold_identifier(text):
        return out
    for m in _IDENTIFIER_RE.finditer(text):
        tok = m.group(0).rstrip(".")
        if "." in tok and "?" not in tok and "/" not in tok and "-" not in tok.split(".")[0]:
            # "U.S.", "a.m.", "St. Louis": a dotted abbreviation is not a domain
            tail = tok.rsplit(".", 1)[-1].lower()
            if tail in _NOT_A_DOMAIN_END or len(tok.split(".")[0]) < 2:
                continue
        if (
            "." in tok
            and "/" not in tok
            and not tok.lower().startswith(("http", "www."))
            and tok.rsplit(".", 1)[-1].lower() not in _ADDRESS_ENDINGS
        ):
            continue  # "ended.the": two words glued by a lost space, not an address
        if "." not in tok and not any(c.isdigit() for c in tok) and tok.count("-") < 2:
            continue  # "AFL-CIO", "UK-US": hyphenated names, not codes
        if tok not in out:
            out.append(tok)
    return out


def missing_identifiers(claim: str, span: str) -> list[str]:
    """The claim's identifiers that the span never states (case- and space-insensitive)."""
    found = identifiers(claim)
    if not found:
        return []  # the span is not read (most claims name no identifier)
    span_low = "".join(span.lower().split())
    return [t for t in found if "".join(t.lower().split()) not in span_low]
