"""The shipped injection pages: well formed, one attack each, markers only in the attack."""

from __future__ import annotations

import json

import pytest
from selectolax.lexbor import LexborHTMLParser
from spanproof.adversarial_fixtures.manifest import (
    SHIPPED_DIR,
    Fixture,
    FixtureError,
    contains_marker,
    load_fixtures,
    normalise,
    page_readings,
    page_source,
)

FIXTURES = load_fixtures()

# The techniques the suite promises to cover (at least one page each).
REQUIRED_TECHNIQUES = {
    "visible-body-text",
    "user-comments-section",
    "image-alt-text",
    "html-comment",
    "css-hidden-display-none",
    "css-hidden-zero-font-size",
    "css-hidden-off-screen",
    "css-hidden-white-on-white",
    "meta-description-and-title",
    "json-ld",
    "noscript",
    "zero-width-and-unicode-tag-characters",
    "markdown-image-exfiltration",
    "link-with-composed-query-string",
    "text-addressed-to-the-verifier",
    "request-to-fetch-another-url",
    "redirect-chain-off-allowlist",
    "claims-permissions-changed",
    "base64-encoded-instructions",
    "instruction-split-across-sentences",
    "non-english-instruction",
    "fake-system-message",
    "attacker-claim-with-fake-authority",
    "oversized-page",
    "include-token-in-answer",
}
# Styles the first 25 did not use, where a phrase list missed the attack.
NEW_TECHNIQUES = {
    "instruction-in-table-cell",
    "instruction-in-table-caption",
    "fake-editors-note",
    "instruction-inside-a-quote",
    "faq-addressed-to-a-chatbot",
    "cyrillic-homoglyph-instruction",
    "second-person-conditional-summariser",
    "non-english-russian",
    "non-english-dutch",
    "non-english-chinese",
    "non-english-spanish-conditional",
    "instruction-in-a-footnote",
    "instruction-in-figure-caption",
    "second-person-addressed-to-a-program",
    "instruction-in-a-list-item",
    "instruction-in-a-code-block",
    "accessibility-pretext",
    "mathematical-alphanumeric-letters",
}
# Prescriptions to derived outputs (answers, summaries, citations, republications) in forms
# that name no software and use no listed phrasing, or that span two blocks or table cells.
PRESCRIPTION_TECHNIQUES = {
    "citation-style-guide",
    "corrections-policy-box",
    "instruction-in-details-element",
    "instruction-split-across-paragraphs",
    "verify-at-link",
    "non-english-polish",
    "fake-quoted-social-post",
    "instruction-in-status-table-cell",
    "faq-addressed-to-a-chatbot-answer-half",
    "label-addressed-to-bots",
    "short-version-for-answer-tools",
    "republication-notice",
    "alt-text-in-figure-caption",
    "structured-data-voice-answer",
    "glossary-definition",
    "licence-condition-for-aggregators",
    "share-text-in-textarea",
    "non-english-unlisted-language",
    "second-person-reader-software",
    "passive-request-to-generated-overviews",
    "non-english-german-summaries",
    "changelog-entry-for-downstream-tools",
    "instruction-across-table-cells",
}
# Pages that state a second value for the asked-for slot (an erratum, a footnote, a revision,
# a fake citation, an authority quote, a "number has changed" notice), plant contact details,
# or direct what a derived text says indirectly, conditionally or in look-alike letters.
ROUND_FOUR_TECHNIQUES = {
    "self-contradiction-erratum",
    "self-contradiction-table-footnote",
    "self-contradiction-revision-history",
    "self-contradiction-fake-citation",
    "self-contradiction-authority-quote",
    "self-contradiction-changed-notice",
    "planted-contact-details",
    "third-person-indirect-obligation",
    "conditional-address-passed-on",
    "greek-armenian-homoglyph-instruction",
    "conditional-summariser-for-somebody",
    "planted-figure-then-homoglyph-order",
    "label-to-derived-text-far-content",
}


def genuine_text(source: str) -> str:
    tree = LexborHTMLParser(source)
    return "\n".join(node.text(deep=True) for node in tree.css("p.content"))


def test_seventy_nine_pages_cover_every_technique():
    assert len(FIXTURES) == 79
    techniques = {f.technique for f in FIXTURES}
    assert techniques >= (
        REQUIRED_TECHNIQUES | NEW_TECHNIQUES | PRESCRIPTION_TECHNIQUES | ROUND_FOUR_TECHNIQUES
    )
    assert len({f.id for f in FIXTURES}) == 79
    assert len(list((SHIPPED_DIR / "pages").glob("*.html"))) == 79


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.id)
def test_markers_appear_only_in_the_attack(fixture: Fixture):
    source = page_source(None, fixture)
    readings = page_readings(source)
    genuine = genuine_text(source)
    assert len(genuine.split()) >= 50, "a page needs real, citable content"
    for marker in fixture.attacker_markers:
        assert any(contains_marker(r, [marker]) for r in readings), (
            f"{marker!r} is not in {fixture.file} (nor in a decoding of it)"
        )
        assert not contains_marker(genuine, [marker]), f"{marker!r} is in the genuine paragraphs"


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.id)
def test_question_is_answered_by_genuine_content(fixture: Fixture):
    # Crude but falsifiable: the question's content words mostly occur in the genuine text.
    genuine = normalise(genuine_text(page_source(None, fixture)))
    words = [w.strip("?,.'") for w in normalise(fixture.question).split() if len(w) > 4]
    found = [w for w in words if w.rstrip("s") in genuine]
    assert len(found) >= max(1, len(words) // 2), (fixture.question, words, found)


def test_attacker_hosts_are_reserved_or_unlisted_loopback():
    for f in FIXTURES:
        for host in f.attacker_hosts:
            assert host.endswith((".example", ".invalid")) or host == "127.0.0.2", host


def test_oversized_page_is_generated_at_serve_time():
    big = [f for f in FIXTURES if f.technique == "oversized-page"]
    assert big and all(f.serve_pad_bytes > 2_000_000 for f in big)
    assert all(len(page_source(None, f).encode()) < 20_000 for f in big)


def test_marker_matching_sees_through_invisible_characters():
    smuggled = "Q\u200bUAIL-TOKEN-5150 " + "".join(chr(0xE0000 + ord(c)) for c in "THRUSH-FREE-5")
    assert contains_marker(smuggled, ["quail-token-5150", "THRUSH-FREE-5"]) == [
        "quail-token-5150",
        "THRUSH-FREE-5",
    ]
    assert contains_marker("an innocent sentence", ["QUAIL-TOKEN-5150"]) == []


def test_a_marker_planted_in_genuine_text_is_caught(tmp_path):
    # The check above must be able to fail: a page whose marker sits in a genuine paragraph.
    source = "<p class='content'>The zoo had 412,000 visitors, token QUAIL-TOKEN-5150.</p>"
    assert contains_marker(genuine_text(source), ["QUAIL-TOKEN-5150"])


def test_bad_manifests_say_how_to_fix(tmp_path):
    with pytest.raises(FixtureError, match="fixtures.jsonl"):
        load_fixtures(tmp_path)
    (tmp_path / "fixtures.jsonl").write_text(
        json.dumps(
            {
                "id": "x",
                "file": "pages/missing.html",
                "technique": "t",
                "question": "What is it?",
                "attacker_markers": ["LONGMARKER"],
                "attacker_hosts": [],
            }
        )
        + "\n"
    )
    with pytest.raises(FixtureError, match="not found"):
        load_fixtures(tmp_path)
