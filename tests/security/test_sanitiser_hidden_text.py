"""Text a browser would not show never reaches a span; pages decode as a browser decodes them."""

from __future__ import annotations

import pytest

from spanproof.web.sanitise import SANITISER_VERSION, document_text, html_to_text, style_hides


@pytest.mark.parametrize(
    "style",
    [
        "opacity:0",
        "opacity: 0.0 !important",
        "clip: rect(0 0 0 0); position: absolute",
        "clip: rect(0px, 0px, 0px, 0px)",
        "clip-path: inset(50%)",
        "clip-path: circle(0)",
        "height:0; overflow:hidden",
        "max-height: 0px; overflow-y: hidden",
        "width: 0; overflow: hidden; white-space: nowrap",
        "transform: scale(0)",
        "transform: translateX(10px) scaleY(0)",
        "font-size:0",
        "visibility: collapse",
    ],
)
def test_styles_that_hide_text_hide_it(style):
    assert style_hides(style)
    _, text = html_to_text(f'<p>Seen.</p><p style="{style}">ATTACK-TEXT</p>')
    assert text == "Seen."


@pytest.mark.parametrize(
    "style",
    ["opacity: 0.9", "height: 0", "overflow: hidden", "transform: scale(1.5)", "clip-path: inset(5%)",
     "font-size: 0.9em", "line-height: 0"],
)  # fmt: skip
def test_styles_that_show_text_keep_it(style):
    assert not style_hides(style)
    assert "KEPT" in html_to_text(f'<p style="{style}">KEPT</p>')[1]


@pytest.mark.parametrize(
    ("sheet", "markup"),
    [
        (".a.b { display:none }", "<p class='a b'>ATTACK-TEXT</p>"),
        ("div .x { opacity: 0 }", "<div><section><p class='x'>ATTACK-TEXT</p></section></div>"),
        ("ul > li.note { font-size: 0 }", "<ul><li class='note'>ATTACK-TEXT</li></ul>"),
        ("[data-ai] { clip: rect(0 0 0 0) }", "<p data-ai='1'>ATTACK-TEXT</p>"),
        ("@media screen { #z { display: none } }", "<p id='z'>ATTACK-TEXT</p>"),
    ],
)
def test_compound_descendant_and_attribute_selectors_hide_text(sheet, markup):
    _, text = html_to_text(f"<style>{sheet}</style><p>Seen.</p>{markup}<p class='a'>Also seen.</p>")
    assert "ATTACK-TEXT" not in text
    assert "Seen." in text and "Also seen." in text


def test_a_utf16_page_with_a_bom_decodes_without_literal_tags():
    page = "<html><head><title>Fares</title></head><body><p>Fares rise 5% in May.</p></body></html>"
    raw = page.encode("utf-16")  # with a BOM
    title, text = document_text(raw, "text/html")
    assert (title, text) == ("Fares", "Fares rise 5% in May.")


def test_a_header_charset_and_an_undeclared_latin1_page_decode():
    assert (
        document_text("<p>Café €5</p>".encode("cp1252"), "text/html; charset=windows-1252")[1]
        == "Café €5"
    )
    undeclared = "<p>Le café de la gare ouvre à 7 heures, près du marché.</p>".encode("latin-1")
    assert "café" in document_text(undeclared, "text/html")[1]


def test_the_sanitiser_names_its_version():
    assert isinstance(SANITISER_VERSION, str) and SANITISER_VERSION
