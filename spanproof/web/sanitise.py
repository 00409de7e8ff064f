"""Turn fetched HTML or plain text into the exact text the tools quote from.

Every span offset indexes into the string this module returns, so the output
must be deterministic and must never carry markup, scripts or URLs.

Choices, and why:

- Parser: selectolax's lexbor backend (a real HTML5 parser, fast in C). We
  keep boilerplate (nav, footer, sidebars) rather than run main-content
  extraction: an extractor that drops a table caption or a byline makes a
  true quote unfindable, and the preview shows the model exactly what is
  quotable anyway.
- Dropped entirely: ``head`` (the title is returned separately), ``script``,
  ``style``, ``noscript``, ``template``, ``iframe``, ``svg``, ``math``,
  ``object``, ``embed``, ``canvas``, HTML comments, and elements a browser
  would not show (``hidden`` attribute, ``aria-hidden="true"``, and a style
  that hides: ``display:none``, ``visibility:hidden``, ``opacity:0``,
  ``font-size:0``, ``transform: scale(0)``, ``clip: rect(0 0 0 0)``, a
  ``clip-path`` that leaves nothing, ``height:0`` or ``width:0`` with
  ``overflow:hidden``, a position or indent of -1000 units or more off the
  page, or a text colour equal to the background colour), whether the style
  is inline or a ``<style>`` rule. Hidden text is a classic injection carrier
  and is never evidence a reader could have seen. Stylesheet selectors are
  matched by lexbor's CSS engine, so compound (``.a.b``), descendant
  (``div .x``), child and attribute selectors count; a selector it cannot
  parse (``::before``) is skipped. External stylesheets, colours inherited
  from a parent and text covered by other elements are not evaluated; such
  text stays, and the verifier's instruction check stands behind it.
- Decoding: w3lib's ``html_to_unicode`` (the order a browser uses: byte-order
  mark, the HTTP charset, a ``<meta>`` declaration), then strict UTF-8, then
  charset-normalizer's guess; a UTF-16 page with a BOM decodes correctly.
- ``SANITISER_VERSION`` names this behaviour. Snapshots record it, and a
  document stored by an older version is converted again when it is fetched
  again, so a fixed sanitiser is never hidden behind cached text. Bump it
  whenever the text this module returns for some input changes.
- Invisible characters: Unicode tag characters (U+E0000..U+E007F, which can
  spell out a whole hidden ASCII instruction), zero-width space, non-joiner
  and joiner (U+200B..U+200D), word joiner (U+2060), the invisible operators
  (U+2061..U+2064), the byte-order mark / zero-width no-break space (U+FEFF)
  and the soft hyphen (U+00AD) are removed before anything else, so they
  can neither smuggle text nor split a URL or a word to dodge a check.
- Links contribute their visible text; their ``href`` never appears.
- ``<img>`` contributes NOTHING, not even its ``alt`` text. Alt text is not
  visible on a rendered page, is rarely evidence, and is a known place to
  hide instructions for machines.
- Markdown (in text/plain bodies and in any text node): ``![x](url)`` and
  ``[x](url)`` become ``x``; ``<http://...>`` autolinks and bare URLs are
  removed.
- URLs: any ``scheme://...`` run, ``www.``-prefixed run, scheme-relative
  ``//host/...`` run, and ``mailto:``/``data:``/``javascript:`` run is removed
  up to the next whitespace, repeated to a fixed point, so no URL can be
  assembled from pieces. Bare domain names without a scheme or ``www.``
  ("Amazon.com") are kept: they are names in prose far more often than links.
- Whitespace: block elements (p, div, li, headings, tr, br, ...) end a block;
  blocks are joined with exactly ``"\\n\\n"``; inside a block every run of
  whitespace (including non-breaking spaces) becomes one space; empty blocks
  disappear; the text has no leading or trailing whitespace.
"""

from __future__ import annotations

import re
from functools import lru_cache

from selectolax.lexbor import LexborHTMLParser, LexborNode, SelectolaxError

# The version lives in a leaf module (the store, below the agent layer, reads it too); bump it
# there whenever the text returned for some input changes (snapshots record it).
from spanproof.core.versions import SANITISER_VERSION as SANITISER_VERSION

_DROP_TAGS = frozenset(
    {
        "head",
        "script",
        "style",
        "noscript",
        "template",
        "iframe",
        "svg",
        "math",
        "object",
        "embed",
        "canvas",
        "img",
        "picture",
        "source",
        "video",
        "audio",
        "map",
        "link",
        "meta",
    }
)

_BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "br",
        "caption",
        "center",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "legend",
        "li",
        "main",
        "menu",
        "nav",
        "ol",
        "option",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "tfoot",
        "thead",
        "tr",
        "ul",
    }
)

# Table cells sit side by side in one row block; a space keeps their words apart.
_CELL_TAGS = frozenset({"td", "th"})

_ZERO = r"0(?:\.0*)?(?:[a-z%]+)?"
_HIDDEN_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden|visibility\s*:\s*collapse"
    rf"|(?<![-\w])font-size\s*:\s*{_ZERO}\s*(?:!important\s*)?(?:;|$)"
    rf"|(?<![-\w])opacity\s*:\s*{_ZERO}\s*(?:!important\s*)?(?:;|$)"
    rf"|(?<![-\w])clip\s*:\s*rect\(\s*{_ZERO}(?:\s*,?\s*{_ZERO}){{3}}\s*\)"
    r"|(?<![-\w])clip-path\s*:\s*(?:inset\(\s*(?:50(?:\.0*)?%|100(?:\.0*)?%)|circle\(\s*0(?:[a-z%]+)?\s*[)a]"
    r"|ellipse\(\s*0(?:[a-z%]+)?\s|polygon\(\s*0(?:px)?\s+0(?:px)?\s*\))"
    rf"|(?<![-\w])transform\s*:[^;]*\bscale[XY]?\(\s*{_ZERO}\s*[,)]",
    re.IGNORECASE,
)
# A box of no height (or width) whose overflow is hidden shows nothing of its text.
_ZERO_BOX = re.compile(
    rf"(?<![-\w])(?:max-)?(?:height|width)\s*:\s*{_ZERO}\s*(?:!important\s*)?(?:;|$)", re.I
)
_OVERFLOW_HIDDEN = re.compile(r"(?<![-\w])overflow(?:-[xy])?\s*:\s*(?:hidden|clip)\b", re.I)

# Pushed off the page: left/top/right/text-indent/margins of -1000 units or more.
_OFF_SCREEN = re.compile(
    r"(?<![-\w])(?:left|top|right|text-indent|margin-left|margin-top)\s*:\s*-\d{4,}(?:\.\d+)?",
    re.IGNORECASE,
)
_COLOUR_DECL = re.compile(
    r"(?<![-\w])(color|background-color|background)\s*:\s*([^;]+)", re.IGNORECASE
)
_NAMED_COLOURS = {"white": "#ffffff", "black": "#000000"}


def _colour(value: str) -> str | None:
    """A colour value normalised for equality (#fff, #ffffff, white, rgb(255,255,255) meet)."""
    v = value.strip().lower().removesuffix("!important").strip()
    v = _NAMED_COLOURS.get(v, v)
    m = re.fullmatch(r"#([0-9a-f]{3})", v)
    if m:
        v = "#" + "".join(ch * 2 for ch in m.group(1))
    m = re.fullmatch(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*1(?:\.0*)?\s*)?\)", v)
    if m:
        v = "#" + "".join(f"{min(255, int(x)):02x}" for x in m.groups())
    return v if re.fullmatch(r"#[0-9a-f]{6}", v) else None


def style_hides(style: str) -> bool:
    """Does this CSS declaration block hide its element's text from a reader?"""
    decls = style.strip() + ";"
    if _HIDDEN_STYLE.search(decls) or _OFF_SCREEN.search(style):
        return True
    if _ZERO_BOX.search(decls) and _OVERFLOW_HIDDEN.search(decls):
        return True
    colours: dict[str, str] = {}
    for prop, value in _COLOUR_DECL.findall(style):
        colour = _colour(value)
        if colour:
            colours["fg" if prop.lower() == "color" else "bg"] = colour
    return "fg" in colours and colours["fg"] == colours.get("bg")


# Characters that render as nothing: tag characters, zero-width characters, soft hyphen.
INVISIBLE_CHARS = frozenset(
    [*range(0xE0000, 0xE0080), 0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064]
    + [0xFEFF, 0x00AD]
)
_INVISIBLE_TABLE = dict.fromkeys(INVISIBLE_CHARS)

# One rule of a stylesheet: selectors { declarations }. Comments are removed first.
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_CSS_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")

_MD_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_AUTOLINK = re.compile(r"<[A-Za-z][A-Za-z0-9+.-]*:[^\s<>]*>")
# Anything a browser or a model could follow: scheme://..., www...., //host/...,
# and the schemes without slashes that carry payloads.
_URL = re.compile(
    r"[A-Za-z][A-Za-z0-9+.\-]*://\S*"
    r"|(?<![^\s(\[<\"'])//[^\s/]\S*"
    r"|\bwww\.\S*"
    r"|\b(?:mailto|data|javascript|vbscript|file|tel|sms):\S+",
    re.IGNORECASE,
)
_WS = re.compile(r"\s+")


def strip_invisible(text: str) -> str:
    """Remove tag characters, zero-width characters and soft hyphens."""
    return text.translate(_INVISIBLE_TABLE)


def strip_urls(text: str) -> str:
    """Remove every URL-like run; repeat until nothing changes."""
    while True:
        stripped = _URL.sub("", text)
        if stripped == text:
            return stripped
        text = stripped


def flatten_markdown(text: str) -> str:
    """Markdown images and links become their text; autolinks and bare URLs go.

    Whitespace is left alone (apart from what removed URLs leave behind);
    use :func:`normalise_blocks` for the canonical layout.
    """
    text = strip_invisible(text)
    previous = None
    while previous != text:
        previous = text
        text = _MD_IMAGE.sub(r"\1", text)
        text = _MD_LINK.sub(r"\1", text)
        text = _AUTOLINK.sub("", text)
    return strip_urls(text)


@lru_cache(maxsize=16384)  # a site's navigation and footer blocks recur on every page
def _clean_block(block: str) -> str:
    block = flatten_markdown(_WS.sub(" ", strip_invisible(block)))
    return _WS.sub(" ", block).strip()


def normalise_blocks(blocks: list[str]) -> str:
    cleaned = (_clean_block(b) for b in blocks)
    return "\n\n".join(b for b in cleaned if b)


def plain_to_text(text: str) -> str:
    """text/plain (or markdown) body: blank lines separate blocks."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return normalise_blocks(re.split(r"\n[ \t\f\v\u00a0]*\n", text))


def hidden_nodes(tree: LexborHTMLParser) -> frozenset[int]:
    """Identities (``mem_id``) of the elements a ``<style>`` rule hides, matched by lexbor's
    CSS engine: ``.a.b``, ``div .x``, ``ul > li``, ``[data-x]`` all count. Rules inside an
    at-rule (``@media``) are read as if unconditional: hiding text for some screens is
    hiding it."""
    hidden: set[int] = set()
    for style in tree.css("style"):
        sheet = _CSS_COMMENT.sub("", style.text(deep=True) or "")
        sheet = re.sub(r"@[\w-]+[^{;]*\{", "", sheet)  # unwrap @media / @supports blocks
        for selectors, declarations in _CSS_RULE.findall(sheet):
            if not style_hides(declarations):
                continue
            for selector in selectors.split(","):
                selector = selector.strip()
                if not selector:
                    continue
                try:
                    hidden.update(node.mem_id for node in tree.css(selector))
                except (SelectolaxError, ValueError):
                    continue  # pseudo-elements and the like: not evaluated
    return frozenset(hidden)


def _is_hidden(node: LexborNode, hidden: frozenset[int]) -> bool:
    if hidden and node.mem_id in hidden:
        return True
    attrs = node.attributes
    if not attrs:
        return False
    if "hidden" in attrs:
        return True
    if (attrs.get("aria-hidden") or "").strip().lower() == "true":
        return True
    return style_hides(attrs.get("style") or "")


def _title(tree: LexborHTMLParser) -> str:
    node = tree.css_first("title")
    if node is None:
        return ""
    return _clean_block(node.text(deep=True) or "")


def html_to_text(html: str) -> tuple[str, str]:
    """Return (title, text) of an HTML document, sanitised as the module docstring says."""
    tree = LexborHTMLParser(html)
    title = _title(tree)
    hidden = hidden_nodes(tree)
    root = tree.root
    if root is None:
        return title, ""

    blocks: list[str] = []
    current: list[str] = []

    def end_block() -> None:
        if current:
            blocks.append("".join(current))
            current.clear()

    # Iterative walk with explicit exit markers: deep nesting cannot overflow the stack.
    stack: list[tuple[LexborNode, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        tag = node.tag
        if leaving:
            if tag in _BLOCK_TAGS:
                end_block()
            elif tag in _CELL_TAGS:
                current.append(" ")
            continue
        if tag == "-text":
            current.append(node.text_content or "")
            continue
        if tag in ("-comment", "!comment", "_comment") or node.is_comment_node:
            continue
        if tag in _DROP_TAGS or (node.is_element_node and _is_hidden(node, hidden)):
            continue
        if tag in _BLOCK_TAGS:
            end_block()
        elif tag in _CELL_TAGS:
            current.append(" ")
        stack.append((node, True))
        children = list(node.iter(include_text=True))
        for child in reversed(children):
            stack.append((child, False))
    end_block()
    return title, normalise_blocks(blocks)


def _sniff(raw: bytes) -> str | None:
    """No BOM, header or meta named an encoding: UTF-8 if the bytes are valid UTF-8, else
    charset-normalizer's best guess (None leaves w3lib's default, UTF-8 with replacement)."""
    try:
        raw.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(raw[:65536]).best()
    return best.encoding if best is not None else None


def decode_body(raw: bytes, content_type: str = "") -> str:
    """Bytes to str the way a browser picks the encoding: BOM, then the header's charset, then
    a ``<meta>`` declaration (w3lib), then strict UTF-8, then charset-normalizer's guess."""
    from w3lib.encoding import html_to_unicode

    _, text = html_to_unicode(content_type or None, raw, auto_detect_fun=_sniff)
    return text


def document_text(raw: bytes, content_type: str) -> tuple[str, str]:
    """(title, text) of a fetched body, whatever its allowed content type."""
    body = decode_body(raw, content_type)
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "text/plain":
        return "", plain_to_text(body)
    return html_to_text(body)
