"""Contact details in a claim: published only when the question asks for them, and then for a
person to check.

An e-mail address, a phone number, a postal address or a web address is an instruction in
disguise: it tells the reader where to write, call or go, and a planted one on a genuine page
("refunds are handled by our claims desk at refunds@...") is how an attacker collects money
or credentials. The verifier can only say the span states it; publication holds the question,
so it decides here, by code, whether the reader asked for a way to reach someone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_STREET_WORDS = (
    "Street|Road|Rd|Lane|Avenue|Ave|Drive|Way|Close|Court|Place|Square|Boulevard|Blvd|"
    "Terrace|Crescent|Row|Parade|Highway|Gardens|Mews|Walk|Hill"
)
_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("e-mail address", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    (
        "web address",
        re.compile(
            r"\bhttps?://\S+|\bwww\.[\w-]+(?:\.[\w-]+)+\S*"
            # a bare host name in lower case ("claims-desk.example/refunds"); "Amazon.com" the
            # company is written with a capital
            r"|(?<![\w@.])[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*"
            r"\.(?:com|org|net|gov|edu|info|io|co|uk|us|eu|de|fr|example|invalid|test)\b(?:/\S*)?"
        ),
    ),
    (
        "phone number",
        re.compile(
            # international (+44 ...), national with a trunk zero (0161 496 0753), North
            # American (555-010-4477, (555) 010 4477); a figure ("318,400") has a comma,
            # a year range has four digits on each side
            r"(?<![\w+])\+\d{1,3}(?:[\s.-]?\(?\d{1,5}\)?){2,5}(?!\w)"
            r"|(?<![\w,.])0\d{2,4}[\s.-]?\d{3,4}[\s.-]?\d{3,4}(?!\w|,\d)"
            r"|(?<![\w,.])\(?\d{3}\)?[\s.-]\d{3}[.-]\d{4}(?!\w|,\d)"
        ),
    ),
    (
        "postal address",
        re.compile(
            rf"\b\d{{1,5}}[A-Za-z]?,?\s+(?:[A-Z][a-z']+\s+){{1,3}}(?:{_STREET_WORDS})\b"
            r"|\b(?:P\.?\s?O\.?\s+Box|Post Office Box)\s+\d+"
            # a UK postcode (M3 7QX, SW1A 1AA) or a US state and ZIP (NY 10001)
            r"|\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b|\b[A-Z]{2}\s\d{5}(?:-\d{4})?\b"
        ),
    ),
)

# A question asks for contact details when it asks how to reach, write to or call someone,
# or names a contact detail as what it wants.
_ASKS = re.compile(
    r"\b(?:contact(?:s|ed|ing)?|e-?mail(?:s|ed)?|(?:tele)?phone(?:d|s)?|call(?:ed|ing)?|fax|"
    r"hotline|helpline|(?:postal |mailing |street |web |e-?mail )?address(?:es)?|web ?sites?|"
    r"urls?|links?|reach(?:ed)?|get in touch|write to|where (?:do|can|should) (?:i|we|you) send)\b",
    re.I,
)


@dataclass(frozen=True)
class Contact:
    kind: str  # e-mail address | web address | phone number | postal address
    text: str
    start: int
    end: int


def contact_details(text: str) -> list[Contact]:
    """Every contact detail the text states, in reading order, overlaps kept once (the
    first kind that claims the characters wins: an e-mail address is not also a host)."""
    found: list[Contact] = []
    for kind, rx in _KINDS:
        for m in rx.finditer(text):
            if any(m.start() < c.end and c.start < m.end() for c in found):
                continue
            found.append(Contact(kind, m.group(0).rstrip(".,;)"), m.start(), m.end()))
    return sorted(found, key=lambda c: c.start)


def asks_for_contact(question: str) -> bool:
    """Does the question ask for a way to reach someone (an address, a number, a site)?"""
    return bool(_ASKS.search(question))


def describe(contacts: list[Contact]) -> str:
    """'phone number 0161 496 0753; e-mail address a@b.example' for a reason or a review."""
    return "; ".join(f"{c.kind} {c.text}" for c in contacts)
