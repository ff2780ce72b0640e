"""Web pages: fetch one over HTTP(S), read its main text into a source draft (trafilatura).

``read_html`` is pure: bytes or text in, a :class:`SourceDraft` out, nothing stored. The draft's
text is the page's main text as trafilatura finds it (boilerplate, comments and navigation
left out), one passage per paragraph-like element (paragraph, heading, list item, table row,
quote paragraph, code block), passages joined by a blank line (``"\\n\\n"``). Inside a passage a
``<br>`` is a single ``"\\n"``; every other whitespace run is one space, except in code blocks,
which keep their lines (blank lines dropped). Table cells are joined by ``" | "``. So no passage
contains a blank line and ``paragraph_passages(draft.text) == draft.passages``.

``fetch`` is one GET with the standard library: http and https only, a size limit enforced
while streaming, redirects followed by hand (loops detected), HTML/XHTML and PDF only.
"""

from __future__ import annotations

import codecs
import copy
import functools
import re
import threading
import time
import unicodedata
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from ledger.errors import IngestError, InvalidInput
from ledger.ingest.base import (
    RAISE_MAX_BYTES,
    PassageDraft,
    SourceDraft,
    check_size,
    content_hash,
    document_url,
    shown_url,
)
from ledger.ingest.webmeta import read_metadata

if TYPE_CHECKING:
    import urllib.request
    from http.client import HTTPMessage, HTTPResponse

    from lxml.etree import _Element
    from lxml.html import HtmlElement, HTMLParser
    from trafilatura.settings import Extractor

__all__ = ["CELL_SEPARATOR", "DEFAULT_MAX_BYTES", "PARAGRAPH_SEPARATOR", "USER_AGENT", "Fetched", "fetch", "read_html"]

DEFAULT_MAX_BYTES = 20 * 2**20
PARAGRAPH_SEPARATOR = "\n\n"
CELL_SEPARATOR = " | "
USER_AGENT = "ledger/0.1 (a source-backed claim ledger for research agents; Python urllib)"
_ACCEPT = "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,*/*;q=0.1"
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_FETCHABLE_TYPES = _HTML_TYPES | {"application/pdf"}
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
RAISE_TIMEOUT = "pass a longer timeout (ledger ingest --timeout) for a slow server"

# --- reading -------------------------------------------------------------------------------------


def read_html(
    html: str | bytes,
    *,
    url: str | None = None,
    retrieved_at: datetime | None = None,
    encoding: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> SourceDraft:
    """Read a web page's main text and metadata into a draft (kind "web"); never stores anything.

    Args:
        html: the page as received (bytes) or already decoded (str; hashed as its UTF-8 bytes).
        url: where the page came from. The draft's ``uri`` is its ``document_url`` (no #fragment,
            no ``utm_*``/``fbclid``/… tracking parameters), the key revisions share; the URL as
            given then goes into ``metadata["url"]``. A different canonical URL the page declares
            goes into ``metadata["canonical_url"]``.
        retrieved_at: when it was fetched (timezone-aware); passed through.
        encoding: the charset from the HTTP Content-Type header, if any. It wins over the
            page's own declaration; only a byte-order mark, or bytes that are valid UTF-8 where a
            legacy charset is claimed, override it.
        max_bytes: refuse larger documents (a str counts its UTF-8 bytes).

    Raises:
        IngestError: empty, too large, not HTML, unparseable, or without main text.
    """
    raw = _as_bytes(html)
    where = shown_url(url) if url else "the document"
    check_size(len(raw), where, max_bytes)
    if not raw or raw.isspace():
        raise IngestError(f"{where} is empty ({len(raw)} bytes, no content)")
    if retrieved_at is not None and retrieved_at.utcoffset() is None:
        raise IngestError("retrieved_at must be timezone-aware (for example datetime.now(UTC))")
    _refuse_known_binary(raw, where)
    if isinstance(html, str):
        # via the bytes: lone surrogates (hashed as given) reach the parser as U+FFFD
        text, codec = raw.decode("utf-8", "replace").removeprefix("\ufeff"), "utf-8"
    else:
        text, codec = _decode(raw, encoding)
    if not text or text.isspace():  # a byte-order mark and nothing else, say
        raise IngestError(f"{where} is empty ({len(raw)} bytes, no content)")
    _refuse_non_html(text, where)

    # The markup in an ASCII-compatible encoding: the raw bytes unless they are UTF-16 or the like.
    markup = raw if _ascii_compatible(codec) else text.encode("utf-8", "surrogatepass")
    tree = _parse(text, markup)
    page = read_metadata(tree, markup, url=url, encoding=codec) if tree is not None else None
    if tree is not None:
        _mend_inline_markup(tree)  # the metadata has been read: the tree may change now
    paragraphs, as_extracted = _paragraphs(_extract(tree, text, url, where), page=tree)
    if page is None or not _has_prose(as_extracted):
        raise IngestError(
            f"{where} contains no main text; is it a navigation or login page? "
            "(trafilatura found no paragraph of running text)"
        )
    body, passages = _join(paragraphs)
    uri = document_url(url) if url else url
    metadata = page.extra if url is None or uri == url else {**page.extra, "url": url}  # as given
    return SourceDraft(
        kind="web",
        text=body,
        content_hash=content_hash(raw),
        passages=passages,
        uri=uri,
        title=page.title,
        author=page.author,
        publisher=page.publisher,
        published_at=page.published_at,
        modified_at=page.modified_at,
        retrieved_at=retrieved_at.astimezone(UTC) if retrieved_at is not None else None,
        metadata=metadata,
    )


def _mend_inline_markup(tree: HtmlElement) -> None:
    """Mend, in one walk, the markup trafilatura would misread: a <time> or a <q> inside a
    sentence, a <pre> without <code>, and text that runs on after an image's block or a
    paragraph holding a line break or code."""
    found: dict[str, list[HtmlElement]] = {"time": [], "q": [], "pre": [], "img": [], "p": []}
    for element in tree.iter("time", "q", "pre", "img", "p"):
        if element.tag == "p" and not _has_word(element.tail) and not _inline_after(element):
            continue  # nothing runs on after the paragraph: the common case
        found[element.tag].append(element)
    _unwrap_times_in_sentences(found["time"])
    _inline_quotes(tree, found["q"])
    for pre in found["pre"]:  # trafilatura reads a <pre> holding one <span> as code, keeping its lines
        if pre.find("code") is None and (len(pre) != 1 or pre[0].tag != "span"):
            _wrap_children(pre)
    _wrap_runs_after_figures(found["img"])
    _wrap_runs_after_paragraphs(found["p"])
    _wrap_runs_after_code(found["pre"])


# Blocks holding an image that trafilatura drops with their tail: a <div> (or the like) when it
# does not take it for text, which it does not whenever the page has paragraphs enough, and a <p>,
# which it rebuilds without its tail once the paragraph has a child (here the image).
_TAIL_DROPPING = frozenset({"p", "div", "figure", "picture", "section", "article", "main", "header", "center"})
# Containers in which a run of text beside blocks is a paragraph of its own (in an <li>, say,
# trafilatura keeps the text as it is).
_RUN_HOSTS = frozenset({"div", "section", "article", "main", "body", "center", "form", "figure", "td", "th"})
# Blocks a figure (an image with its caption or credit) does not hold: above them, or above the
# paragraph, list item or cell an image stands in, its ancestors are sections of the page.
_NOT_IN_FIGURES = ("ul", "ol", "dl", "h1", "h2", "h3", "h4", "h5", "h6", "table", "blockquote", "pre")
_ABOVE_FIGURES = frozenset({*_NOT_IN_FIGURES, "p", "li", "dd", "dt", "td", "th", "caption", "figcaption", "body"})
# What ends a run of inline content: a line break (trafilatura keeps the text after a <br> as a
# paragraph) and block-level or embedded elements (not <address>: trafilatura unwraps it).
_RUN_ENDS = frozenset({
    "br", "article", "aside", "audio", "blockquote", "button", "canvas", "caption", "center", "dd", "details",
    "dialog", "div", "dl", "dt", "embed", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hgroup", "hr", "iframe", "label", "li", "main", "menu", "nav", "noscript",
    "object", "ol", "p", "picture", "pre", "script", "section", "select", "style", "svg", "table", "tbody", "td",
    "template", "textarea", "tfoot", "th", "thead", "tr", "ul", "video",
})  # fmt: skip
_RUN_BLOCKS = _RUN_ENDS - {"br"}  # what an inline element of a run may not hold (it may a <br>)


def _wrap_runs_after_figures(images: list[HtmlElement]) -> None:
    """Make a <p> of the text that runs on after the block holding an image (its figure), up to
    the next block or line break: "<div><img ...><div>caption</div></div>Lead <em>sentence</em>."
    Browsers show that text as a paragraph of its own; trafilatura, told to keep images, keeps
    the figure and drops the text after it with it (without images it would drop the emptied
    figure alone). A run that is itself an image caption (a class or id with "caption", as
    trafilatura knows them) is left as it is."""
    seen: set[HtmlElement] = set()
    for image in images:
        for block in image.iterancestors():
            if block in seen:
                break  # climbed from an earlier image already
            seen.add(block)
            if block.tag in _TAIL_DROPPING and (run := _run_after(block)) is not None:
                if next(block.iter(_NOT_IN_FIGURES), None) is not None:
                    break  # a section of the page with an image in it, not a figure
                if (parent := block.getparent()) is not None and parent.tag in _RUN_HOSTS:
                    _wrap_run(block, run)
            if block.tag in _ABOVE_FIGURES:
                break


# What trafilatura keeps inside a paragraph (without formatting and links), which makes it rebuild
# the paragraph, without its tail: a line break, code, deleted text (an image: see above).
_KEPT_IN_PARAGRAPHS = ("br", "code", "del", "s", "strike")


def _wrap_runs_after_paragraphs(paragraphs: list[HtmlElement]) -> None:
    """Make a <p> of the text that runs on after a paragraph holding a line break or code
    ("<p>First line<br>second</p>More text."), up to the next block or line break, as after a
    figure (see _wrap_runs_after_figures): trafilatura rebuilds such a paragraph without its
    tail, so loose text after it is lost."""
    for paragraph in paragraphs:
        if next(paragraph.iter(_KEPT_IN_PARAGRAPHS), None) is not None:  # else kept with its tail
            _wrap_run_after(paragraph)


def _wrap_runs_after_code(blocks: list[HtmlElement]) -> None:
    """Make a <p> of the text that runs on after a code block ("<pre>make</pre>Then run it."), up
    to the next block or line break: trafilatura keeps it as a paragraph, except where it drops a
    code block that repeats an earlier one, which takes the text after it along."""
    for block in blocks:
        _wrap_run_after(block)


def _wrap_run_after(block: HtmlElement) -> None:
    """Wrap the run after the block (see :func:`_run_after`) in a <p>, where its parent is a
    container in which such a run is a paragraph of its own."""
    if (parent := block.getparent()) is not None and parent.tag in _RUN_HOSTS and (run := _run_after(block)) is not None:
        _wrap_run(block, run)


def _wrap_run(block: HtmlElement, run: list[HtmlElement]) -> None:
    """Move the block's tail and the run after it into a new <p> right after the block."""
    from lxml.html import Element

    paragraph = Element("p")
    paragraph.text, block.tail = block.tail, None
    for element in run:
        paragraph.append(element)  # moves it, with its tail
    block.addnext(paragraph)


def _inline_after(block: HtmlElement) -> bool:
    """Whether an inline element (or the like: not a block, not a line break) follows the block."""
    return (after := block.getnext()) is not None and after.tag not in _RUN_ENDS


def _run_after(block: HtmlElement) -> list[HtmlElement] | None:
    """The inline elements after a block up to the next block or <br> (or inline element
    holding one, such as a <span> around the article's paragraphs), if they or the block's tail
    hold a word (not punctuation alone) and none is a caption; None otherwise."""
    run: list[HtmlElement] = []
    words = _has_word(block.tail)
    sibling = block.getnext()
    while sibling is not None and sibling.tag not in _RUN_ENDS:
        if isinstance(sibling.tag, str):
            if next(sibling.iter(_RUN_BLOCKS), None) is not None:
                break  # a <p> moved into the new <p> would be lost or out of order
            if "caption" in (sibling.get("class") or "").lower() or "caption" in (sibling.get("id") or "").lower():
                return None
            words = words or any(_has_word(piece) for piece in sibling.itertext())
        words = words or _has_word(sibling.tail)
        run.append(sibling)
        sibling = sibling.getnext()
    return run if words else None


_WORD_CHARACTER = re.compile(r"[^\W_]")  # a letter or digit


def _has_word(text: str | None) -> bool:
    return text is not None and _WORD_CHARACTER.search(text) is not None


def _unwrap_times_in_sentences(times: list[HtmlElement]) -> None:
    """Keep the text of a <time> that stands inside a sentence ("resigned on <time>Tuesday</time>
    after a vote"): trafilatura deletes every <time> with its text, which is right for a
    dateline of its own but cuts words out of running text."""
    from lxml.etree import strip_tags

    for time in times:
        parent = time.getparent()
        if parent is None:  # unwrapped already, with a sibling
            continue
        # the text beside it in the same run of text (not inside other elements such as a heading)
        around = (parent.text or "") + "".join((child.tail or "") for child in parent)
        if any(c.isalpha() for c in around):
            strip_tags(parent, "time")


def _inline_quotes(tree: HtmlElement, quotes: list[HtmlElement]) -> None:
    """Read a <q> as browsers render it: its words inside quotation marks (“ ”, ‘ ’ when nested),
    in the sentence. trafilatura takes it for a block quote and breaks the paragraph around it.
    A <q> that is all the words of its block (a pull quote alone in its <div>) stays a quote:
    as bare text trafilatura would drop it as too short."""
    from lxml.etree import strip_tags

    letters_of: dict[HtmlElement, str] = {}  # each block's letters and digits, read once
    depths = [sum(1 for _ in quote.iterancestors("q")) for quote in quotes]  # before any is renamed
    for quote, depth in zip(quotes, depths, strict=True):
        lone = False
        if depth == 0:
            block = _block_of(quote)
            if block not in letters_of:
                letters_of[block] = _letters(block)
            lone = _letters(quote) == letters_of[block]
        opening, closing = ("\u2018", "\u2019") if depth % 2 else ("\u201c", "\u201d")
        quote.text = opening + (quote.text or "")
        if len(quote):
            quote[-1].tail = (quote[-1].tail or "") + closing
        else:
            quote.text += closing
        if not lone:
            quote.tag = _INLINED_QUOTE
    if quotes:
        strip_tags(tree, _INLINED_QUOTE)  # one pass, however many quotes


_INLINED_QUOTE = "ledger-inline-q"
_NOT_LETTERS = re.compile(r"[\W_]+")


def _letters(element: HtmlElement) -> str:
    return _NOT_LETTERS.sub("", element.text_content())


def _block_of(element: HtmlElement) -> HtmlElement:
    """The nearest ancestor that is not inline markup (the paragraph or block a <q> is in)."""
    for ancestor in element.iterancestors():
        if ancestor.tag not in _INLINE:
            return ancestor
    return element


_INLINE = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark", "q", "s",
    "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var",
})  # fmt: skip
# what an XML document may have on top and still be (X)HTML: a page or a fragment of one
_HTML_ELEMENTS = _INLINE | _RUN_ENDS | {"html", "head", "body", "title", "address", "img"}


def _wrap_children(element: HtmlElement) -> None:
    """Move an element's text and children into one <span> child."""
    from lxml.html import Element

    span = Element("span")
    span.text, element.text = element.text, None
    for child in list(element):
        span.append(child)  # moves it, with its tail
    element.append(span)


def _as_bytes(html: str | bytes) -> bytes:
    if isinstance(html, bytes):
        return html
    if isinstance(html, str):
        try:
            return html.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: hash them as given
            return html.encode("utf-8", "surrogatepass")
    raise IngestError(f"read_html takes the page as str or bytes, not {type(html).__name__}")


_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "a PDF document; read it with the PDF ingester"),
    (b"PK\x03\x04", "a ZIP archive (or an office document)"),
    (b"\x1f\x8b", "gzip-compressed data; decompress it first"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data; decompress it first"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
)


def _refuse_known_binary(raw: bytes, where: str) -> None:
    start = raw[:1024].lstrip()
    for magic, what in _MAGIC:
        if start.startswith(magic):
            raise IngestError(f"{where} is not HTML: it is {what}")


_TAG = re.compile(r"<(?:!doctype|[a-z][a-z0-9-]*)[\s>/]", re.IGNORECASE)
_BINARY_CHARS = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f]")


# The first element of a document, after any XML declaration, doctype, comments and
# processing instructions; group 1 is the declaration if there is one. Possessive throughout: a
# prolog that leads to no element fails in one pass (backtracking would take exponential time).
_FIRST_ELEMENT = re.compile(
    r"\s*+(<\?xml\s.*?\?>)?+(?:<\?.*?\?>|<!--.*?-->|<![^>]*+>|\s++)*+<([a-z][\w:.-]*+)", re.IGNORECASE | re.DOTALL
)
_EMBEDDABLE = frozenset({"svg", "math"})
# XML vocabularies that parse as HTML (libxml2 reads any tag) but are not pages.
_FEED = "a news feed ({}); ingest the pages its entries link to"
_NOT_PAGES = {
    "rss": _FEED.format("RSS"),
    "rdf:rdf": _FEED.format("RSS 1.0"),
    "feed": _FEED.format("Atom"),
    "svg": "an SVG image",
    "math": "a MathML formula",
}


def _refuse_non_html(text: str, where: str) -> None:
    sample = text[:8192]
    binary = len(_BINARY_CHARS.findall(sample))
    if binary > len(sample) // 10:
        raise IngestError(f"{where} is not HTML: {binary} of its first {len(sample)} characters are control characters")
    if _TAG.search(text) is None:
        raise IngestError(f"{where} is not HTML: it has no tags (use the text ingester for plain text)")
    if (first := _FIRST_ELEMENT.match(sample)) is not None:
        root = first.group(2).lower()
        # a feed is never a fragment; an <svg> or <math> is the document only if it ends it
        # (a fragment may start with an inline icon or formula)
        if root in _NOT_PAGES and (root not in _EMBEDDABLE or text.rstrip().lower().endswith(f"</{root}>")):
            raise IngestError(f"{where} is not HTML: its root element <{first.group(2)}> makes it {_NOT_PAGES[root]}")
        if first.group(1) and root.rpartition(":")[2] not in _HTML_ELEMENTS:  # XHTML declares itself XML
            raise IngestError(f"{where} is not HTML: it is an XML document with root element <{first.group(2)}>")


# --- charset -------------------------------------------------------------------------------------

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_META_CHARSET = re.compile(rb"""<meta\s[^>]*?charset\s*=\s*["']?\s*([a-z0-9_.:-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([a-z0-9_.:-]+)""", re.IGNORECASE)
# WHATWG Encoding Standard: codecs browsers decode as a superset of what they are named (applied
# to Python's codec name, so every label of one, "latin1", "cp819", "iso-ir-100" …, is covered) …
_SUPERSETS = {
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
    "gb2312": "gbk",
    "euc_kr": "cp949",
    "shift_jis": "cp932",
    "big5": "big5hkscs",
}
# … and labels of the standard that Python does not know.
_LABEL_ALIASES = {
    "x-cp1252": "cp1252",
    "windows-874": "cp874",
    "x-gbk": "gbk",
    "csgb2312": "gbk",
    "gb_2312-80": "gbk",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "x-euc-jp": "euc_jp",
    "cseuckr": "cp949",
    "iso-ir-149": "cp949",
    "x-mac-roman": "mac_roman",
    "macintosh": "mac_roman",
    "x-mac-cyrillic": "mac_cyrillic",
}
# A document cannot declare these about itself in ASCII; browsers ignore such a declaration.
_NOT_DECLARABLE = ("utf-16", "utf-32", "utf-7")


def _codec(label: str | None) -> str | None:
    """Python codec name for a charset label, None for an unknown label."""
    if not label:
        return None
    name = label.strip().strip("\"'").lower()
    name = _LABEL_ALIASES.get(name, name)
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        return None
    return _SUPERSETS.get(codec, codec)


def _declared(raw: bytes) -> str | None:
    """The charset the document declares in its first 16 KiB (meta charset, http-equiv, XML)."""
    head = raw[:16384]
    match = _XML_ENCODING.match(head) or _META_CHARSET.search(head)
    codec = _codec(match.group(1).decode("ascii")) if match else None
    if codec is None or codec.startswith(_NOT_DECLARABLE):
        return None
    return codec


def _decode(raw: bytes, encoding: str | None) -> tuple[str, str]:
    """Decode page bytes: BOM, then HTTP charset, then the page's declaration, then UTF-8, then a guess."""
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            return raw[len(bom) :].decode(codec, "replace"), codec
    for label in (_codec(encoding), _declared(raw)):
        if label is None:
            continue
        if label != "utf-8" and not raw.isascii() and _is_utf8(raw):
            # Valid multi-byte UTF-8 read as a legacy charset is mojibake: the label is wrong
            # (servers that default to ISO-8859-1 are the usual cause).
            return raw.decode("utf-8"), "utf-8"
        return raw.decode(label, "replace"), label
    wide = _utf16_without_bom(raw)
    if wide is not None:
        return raw.decode(wide, "replace"), wide
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes  # only for undeclared legacy pages

    guess = from_bytes(raw).best()
    guessed = _codec(guess.encoding) if guess is not None else None
    if guessed is None:
        return raw.decode("utf-8", "replace"), "utf-8"
    return raw.decode(guessed, "replace"), guessed


@functools.cache
def _ascii_compatible(codec: str) -> bool:
    """Whether ASCII text has the same bytes in this codec (not so in UTF-16 or EBCDIC)."""
    sample = "<meta content=author>"
    try:
        return sample.encode(codec) == sample.encode("ascii")
    except (LookupError, UnicodeError):
        return False


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _utf16_without_bom(raw: bytes) -> str | None:
    """UTF-16 without a BOM shows as ASCII with a NUL in every other byte."""
    sample = raw[:1024]
    if len(sample) < 16 or sample.count(0) < len(sample) // 3:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.9 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "utf-16-be"
    return None


# --- extraction ----------------------------------------------------------------------------------


def _parse(text: str, markup: bytes | None = None) -> HtmlElement | None:
    """The page's document element, parsed with trafilatura's repairs and parser settings; None
    where libxml2 finds no tree.

    Unlike trafilatura's load_html (lxml's ``fromstring``), a fragment is read whole, as the ``<html>`` and
    ``<body>`` libxml2 puts around it: a "<p>…</p>" alone, or a filing wrapped in SGML
    ``<DOCUMENT>`` tags, is not refused as "dubious" (trafilatura's guard against text that is
    not HTML at all: :func:`_refuse_non_html` has applied ours), nor reduced to its top element."""
    from lxml.etree import LxmlError
    from lxml.html import document_fromstring
    from trafilatura.utils import repair_faulty_html

    beginning = text[:50].lower()
    if _may_need_repair(text, beginning, markup):
        text = repair_faulty_html(text, beginning)
    parser = _parser()
    tree: HtmlElement | None = None
    try:
        tree = document_fromstring(text, parser=parser)
    except ValueError:  # "Unicode strings with encoding declaration are not supported"
        pass
    except LxmlError:  # "Document is empty" and the like
        return None
    if tree is None or len(tree) < 1:
        try:
            tree = document_fromstring(text.encode("utf-8", "surrogatepass"), parser=parser)
        except (LxmlError, ValueError):
            return None
    return tree


# Whether trafilatura's repair_faulty_html could change the text: characters XML refuses, a
# doctype with a slash (or a one-line page after one), a self-closing <html/>. Its regular
# expression over the whole page costs more than this check; most pages need no repair.
_CONTROL_BYTES = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])
_DOCTYPE_WITH_SLASH = re.compile(r"^< ?! ?doctype[^>]*/", re.IGNORECASE)


def _may_need_repair(text: str, beginning: str, markup: bytes | None = None) -> bool:
    """``markup``: the text's bytes in an ASCII-compatible encoding (its UTF-8 if not given),
    where a control character is that byte below 0x20 (in a stateful charset, ISO-2022, such a
    byte may also be an escape: the repair then runs for nothing)."""
    data = text.encode("utf-8", "surrogatepass") if markup is None else markup
    if len(data.translate(None, _CONTROL_BYTES)) != len(data) or "\ufffe" in text or "\uffff" in text:
        return True  # U+0000-U+001F but tab and newlines, U+FFFE, U+FFFF
    if "doctype" in beginning and ("\n" not in text or _DOCTYPE_WITH_SLASH.match(text)):
        return True
    return any("<html" in line and line.endswith("/>") for line in text[:4096].splitlines()[:4])


_PARSERS = threading.local()


def _parser() -> HTMLParser:
    """trafilatura's HTML parser settings, with the element class chosen in C.

    lxml.html's default lookup calls back into Python for every element proxy it creates (and
    trafilatura creates them by the ten thousand) only to pick form-specific classes, which
    trafilatura does not use. One parser per thread: lxml parsers are not thread-safe.
    """
    parser: HTMLParser | None = getattr(_PARSERS, "parser", None)
    if parser is None:
        from lxml import etree
        from lxml.html import (
            HtmlComment,
            HtmlElement,
            HtmlEntity,
            HTMLParser,
            HtmlProcessingInstruction,
        )

        parser = HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8", remove_comments=True,
                            remove_pis=True)
        parser.set_element_class_lookup(etree.ElementDefaultClassLookup(
            element=HtmlElement, comment=HtmlComment, pi=HtmlProcessingInstruction, entity=HtmlEntity))
        _PARSERS.parser = parser
    return parser


@functools.cache
def _options() -> Extractor:
    """trafilatura's options for the main text: no comments, tables kept, no metadata, "xml"
    (the body tree, not trafilatura's own text rendering: it is walked below). Made once and
    copied per page: building them reads trafilatura's configuration anew each time."""
    from trafilatura.settings import Extractor

    return Extractor(output_format="xml", comments=False, tables=True, images=True, links=False, formatting=False)


def _extract(tree: HtmlElement | None, text: str, url: str | None, where: str) -> _Element:
    """trafilatura's main text (no comments) of the page, as its body tree."""
    import trafilatura  # heavy: `import ledger` stays cheap
    from trafilatura.settings import Document

    document = None
    if tree is not None:
        options = copy.copy(_options())
        options.url = options.source = url
        _skip_hopeless_readability()
        _skip_needless_page_measure()
        reading, _READING.active = getattr(_READING, "active", False), True
        _READING.extracted = None
        try:
            # trafilatura works on a copy of the tree; the metadata was read from this one.
            document = trafilatura.bare_extraction(tree, options=options)
        except RecursionError as exc:
            raise IngestError(f"{where} is nested too deeply to read") from exc
        except Exception as exc:  # a parser failure deep inside a third-party library
            raise IngestError(f"{where} could not be parsed as HTML: {type(exc).__name__}: {exc}") from exc
        finally:
            _READING.active = reading
    if not isinstance(document, Document):
        if _too_deep(text):
            raise IngestError(
                f"{where} nests its elements deeper than the HTML parser's limit (256 levels); "
                "the text below that depth cannot be read"
            )
        raise IngestError(
            f"{where} contains no main text; is it a navigation or login page? (trafilatura extracted nothing)"
        )
    return document.body


# Set while read_html runs trafilatura: only then are its shortcuts taken. ``extracted`` is the
# length of trafilatura's text so far, for its page measure (None: not known).
_READING = threading.local()


@functools.cache
def _skip_hopeless_readability() -> None:
    """Spare trafilatura the readability pass on pages where its result could not be chosen.

    trafilatura runs readability on a copy of every page, then keeps its own extraction unless
    (outside "recall" mode) readability's text is more than twice as long, or its own has no
    paragraph text or more tables than paragraphs. Readability returns a part of the page, in
    page order, without scripts and styles (plus "VIDEO" in a video's frame and the escapes of its
    XML round trip: :func:`_longest_readability` counts them), so its text is no longer than that
    bound: where the bound is at most twice trafilatura's own, readability cannot win, and is
    given an empty page instead of the copy. The rest of the comparison (the justext rescue) runs
    unchanged, so the result is the same; on 62% of 1,166 pages this saves about a fifth of
    trafilatura's time. The step also records the length of the text it returns, for
    :func:`_skip_needless_page_measure`.
    Installed once, for read_html's calls only (other callers of trafilatura are unaffected);
    a trafilatura whose steps differ is left as it is.
    """
    import trafilatura.core
    from lxml.html import Element

    core = trafilatura.core
    original, extract_content, compare = (
        getattr(core, name, None) for name in ("_extract_and_compare", "extract_content", "compare_extraction"))
    if original is None or extract_content is None or compare is None or (
        getattr(getattr(original, "__code__", None), "co_names", None) != _EXTRACT_AND_COMPARE_NAMES
    ):
        return  # a trafilatura without these steps, or whose step does more than the one re-written below

    # trafilatura's own step (main extractor, then the comparison unless in fast mode), with the
    # page copied for readability only where its result could be chosen
    def extract_and_compare(cleaned_tree: HtmlElement, cleaned_tree_backup: HtmlElement, tree: HtmlElement,
                            options: Extractor) -> tuple[_Element, str]:
        if not getattr(_READING, "active", False):
            return original(cleaned_tree, cleaned_tree_backup, tree, options)  # type: ignore[no-any-return]
        body, text = extract_content(cleaned_tree, options)
        if not options.fast:
            raw = Element("html") if _readability_cannot_win(tree, body, text, options) else copy.copy(tree)
            body, text = compare(cleaned_tree_backup, raw, body, text, options)
        _READING.extracted = len(text)
        return body, text

    setattr(core, "_extract_and_compare", extract_and_compare)  # noqa: B010 (not exported)


# What trafilatura's _extract_and_compare calls (2.3): the steps the wrapper above re-writes.
_EXTRACT_AND_COMPARE_NAMES = ("extract_content", "fast", "compare_extraction", "copy")


def _readability_cannot_win(raw_tree: HtmlElement, body: _Element, text: str, options: Extractor) -> bool:
    """Whether trafilatura would keep its own extraction (``text``, of ``body``) whatever
    readability finds in ``raw_tree``: see :func:`_skip_hopeless_readability`."""
    if options.focus == "recall" or not text or not body.xpath(".//p//text()"):
        return False
    if len(body.findall(".//table")) > len(body.findall(".//p")):
        return False
    return _longest_readability(raw_tree) <= 2 * len(text)


def _longest_readability(raw_tree: HtmlElement) -> int:
    """An upper bound of the length of readability's text of a page, whitespace runs made one
    space as trafilatura measures it: the page's text so measured, less the non-space characters
    of the scripts and styles readability drops before it picks a part of the rest, plus what it
    may write into frames and raw-text elements.

    Counted in UTF-8 bytes, only ASCII whitespace taken for space (a character takes at least
    a byte): a looser bound, but C-level counts instead of a list of the page's words.
    """
    from lxml.etree import tostring

    text = tostring(raw_tree, method="text", encoding="utf-8")
    longest = len(text.translate(None, _ASCII_SPACE)) + len(text.split()) - 1
    for element in raw_tree.iter(*_DROPPED, *_RAW_TEXT):  # one walk for both
        content = element.text or ""
        if element.tag in _DROPPED:
            longest -= len(content.encode("utf-8", "surrogatepass").translate(None, _ASCII_SPACE))
        else:
            # What readability adds: "VIDEO" written into a video's <iframe> (with a space), and
            # the escapes its XML round trip leaves in raw-text elements ("&" comes back as "&amp;").
            longest += 6 + 4 * (content.count("&") + content.count("<") + content.count(">"))
    return longest


_ASCII_SPACE = b" \t\n\r\x0b\x0c"  # what bytes.split() splits at
_DROPPED = ("script", "style", "fencedframe")  # what readability drops before it reads the page
_RAW_TEXT = ("iframe", "xmp", "noembed", "noframes", "plaintext", "noscript")  # as libxml2 reads them


@functools.cache
def _skip_needless_page_measure() -> None:
    """Spare trafilatura its measure of the page's text where the answer cannot matter.

    When its text (after the readability comparison and the baseline rescue) is short,
    trafilatura retries in "recall" mode if that text is less than a fifth of the page's, as
    ``html2txt`` renders the page: a copy, cleaned of scripts, asides and footers, spaced at
    every block. That rendering costs about a tenth of reading the page. The page's text is no
    longer than the bound of :func:`_longest_page_text`; where a fifth of that bound is not more
    than trafilatura's text, the retry cannot happen, and the measure is answered with an empty
    text, which fails the test as the real one would. The length of trafilatura's text is
    recorded as its extraction (:func:`_skip_hopeless_readability`, installed first) and its
    baseline rescue return it. A page html2txt cannot render
    (a control character from a character reference) is not retried either, where trafilatura
    gave up on it.
    Installed once, for read_html's calls only; a trafilatura without these steps is left as it is.
    """
    import importlib

    import trafilatura.core
    from lxml.html import HtmlElement

    core = trafilatura.core
    steps = ("baseline", "html2txt", "ESCALATION_PAGE_SHARE")
    # (the package's own name "baseline" is the function: the module is looked up by its full name)
    if not all(hasattr(core, name) for name in steps) or not hasattr(
        importlib.import_module("trafilatura.baseline"), "_BLOCK_ELEMS"
    ):
        return
    baseline, html2txt = (getattr(core, name) for name in steps[:2])

    def recorded_rescue(*args: Any) -> tuple[_Element, str, int]:
        body, text, length = baseline(*args)
        extracted = getattr(_READING, "extracted", None)
        if getattr(_READING, "active", False) and extracted is not None and length > extracted:
            _READING.extracted = len(text)  # trafilatura takes the rescue's text where it is longer
        return body, text, length

    def page_measure(tree: HtmlElement, clean: bool = True) -> str:
        if not getattr(_READING, "active", False):
            return html2txt(tree, clean)  # type: ignore[no-any-return]
        extracted = getattr(_READING, "extracted", None)
        try:
            if (
                extracted is not None and clean and isinstance(tree, HtmlElement)
                and extracted >= core.ESCALATION_PAGE_SHARE * _longest_page_text(tree)
            ):
                return ""
            return html2txt(tree, clean)  # type: ignore[no-any-return]
        except ValueError:
            # lxml refuses to write a form feed or another control character that a character
            # reference put in the page (&#12;) back into a copy; trafilatura then gave up on the
            # whole page. Unmeasured, the page is read as it is, as where the measure is spared.
            return ""
        finally:
            _READING.extracted = None

    setattr(core, "baseline", recorded_rescue)  # noqa: B010 (not exported)
    setattr(core, "html2txt", page_measure)  # noqa: B010


def _longest_page_text(tree: HtmlElement) -> int:
    """An upper bound of the length of ``trafilatura.html2txt(tree)``: the body's text less its
    scripts and styles (html2txt's cleaning removes them, and more), plus one space before the
    text and one before the tail of each block (its spacing), whitespace runs counted as they are."""
    from trafilatura.baseline import _BLOCK_ELEMS

    body = tree.find(".//body")
    if body is None:
        body = tree
    longest = len(body.text_content()) + 2 * sum(1 for _ in body.iter(*_BLOCK_ELEMS))
    for element in body.iter("script", "style"):  # raw text in HTML: never inside one another
        longest -= len(element.text_content())
    return longest


def _too_deep(text: str) -> bool:
    """Whether libxml2 stopped parsing at its depth limit (asked only after an empty extraction)."""
    from lxml import etree

    parser = etree.HTMLParser(encoding="utf-8", recover=True, no_network=True, remove_comments=True)
    try:
        etree.fromstring(text.encode("utf-8", "replace"), parser)
    except (etree.LxmlError, ValueError):
        return False
    return any(error.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT for error in parser.error_log)


# trafilatura's output vocabulary (plus HTML names its fallbacks can leave behind).
_BLOCKS = frozenset(
    {
        "body", "div", "p", "head", "list", "item", "quote", "table", "note", "ab", "figure",
        "article", "section", "main", "aside", "header", "footer", "blockquote", "pre",
        "ul", "ol", "li", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "details", "summary",
        "cell", "td", "th",
        # HTML's other blocks, met when a page is read again for trafilatura's last fallback
        "address", "caption", "center", "dialog", "fieldset", "figcaption", "form", "hgroup", "hr",
        "legend", "menu", "nav",
    }
)  # fmt: skip
_ROWS = frozenset({"row", "tr"})
_BREAKS = frozenset({"lb", "br"})
# Inside these a <code> is a code block (its own passage, lines kept); elsewhere it is inline.
_CODE_HOSTS = frozenset({"body", "div", "quote", "list", "note", "figure", "article", "section", "main"})
_LINE_BREAK = None  # marks a <br> in a paragraph's pieces
_OPENING = frozenset("([{«“‘¿¡")
_CLOSING = frozenset(".,;:!?)]}»”’%…")


class _Paragraphs:
    """Walks trafilatura's body tree, collecting one text per paragraph-like element."""

    def __init__(self, page: HtmlElement | None = None, *, split_runs: bool = False) -> None:
        self.out: list[str] = []
        self.pieces: list[str | None] = []
        self.pre = False
        self.single = False  # the body is one text-only block: trafilatura's fallback, a line per block
        self.page = page  # the page's own tree, if it may be read
        # (start, end, lines as trafilatura gave them) of the output read again from the page
        self.reread: list[tuple[int, int, list[str]]] = []
        # Reading a page again for a fallback: text nodes with no space between them stay one
        # paragraph only at punctuation ("<a>the almanac</a>."); otherwise what sets them apart
        # is markup or style that a browser may well show as lines ("<b>June.</b><b>Tickets</b>").
        self.split_runs = split_runs
        self._pre_texts: frozenset[tuple[str, str]] | None = None
        self._page_read: tuple[list[str], list[int], str] | None = None

    def pre_texts(self) -> frozenset[tuple[str, str]]:
        """(text, start of the text after it) of the page's own ``<pre>`` blocks (see
        :func:`_beside`)."""
        if self._pre_texts is None:
            blocks = self.page.iter("pre") if self.page is not None else ()
            self._pre_texts = frozenset(_beside(pre.text_content(), pre.tail) for pre in blocks)
        return self._pre_texts

    def page_read(self) -> tuple[list[str], list[int], str]:
        """The lines of the page's body as a browser breaks them, after the cleaning of
        trafilatura's last fallback (read once; none without a body), where each starts in
        their words joined without whitespace, and those words."""
        if self._page_read is None:
            lines: list[str] = []
            body = self.page.find(".//body") if self.page is not None else None
            try:
                from trafilatura.baseline import basic_cleaning
            except ImportError:  # pragma: no cover - trafilatura moved it: keep its lines
                body = None
            if body is not None:
                read = _Paragraphs(split_runs=True)
                read.walk(basic_cleaning(copy.deepcopy(body)))
                read.flush()
                lines = [line for paragraph in read.out for line in paragraph.split("\n")]
            squeezed = ["".join(line.split()) for line in lines]
            self._page_read = (lines, list(accumulate(map(len, squeezed), initial=0)), "".join(squeezed))
        return self._page_read

    def page_lines(self, extracted: str) -> list[str] | None:
        """The lines of the page that hold exactly the words of ``extracted``, read from the
        page's own body as a browser breaks it (blocks and ``<br>``), after the cleaning of
        trafilatura's last fallback; None if no run of whole lines does.

        A text-only block with newlines comes from trafilatura's fallbacks, whose newlines may
        be the page source's own (a paragraph's lines as written) or stand between text nodes
        (a link inside a sentence: "see the" / "manual" / "."), not between paragraphs.
        """
        lines, starts, words = self.page_read()
        if not lines:
            return None
        wanted = "".join(unicodedata.normalize("NFC", extracted).split())
        first = words.find(wanted) if wanted else -1
        if first < 0:
            return None
        begin, end = bisect_left(starts, first), bisect_left(starts, first + len(wanted))
        if end >= len(starts) or starts[begin] != first or starts[end] != first + len(wanted):
            return None  # the extracted text starts or ends inside a line
        return lines[begin:end]

    def flush(self) -> None:
        if self.pieces:
            text = _pre_text(self.pieces) if self.pre else _flow_text(self.pieces)
            self.pieces = []
            if text:
                self.out.append(text)

    def walk(self, element: _Element) -> None:
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in _ROWS and not _holds_blocks(element):
            self.flush()
            cells = [element.text or ""]
            for cell in element:
                cells += [_flat_text(cell), cell.tail or ""]
            self.pieces = [CELL_SEPARATOR.join(text for cell in cells if (text := " ".join(cell.split())))]
            self.flush()
        elif tag == "pre" or (tag == "code" and _is_code_block(element, self.pre_texts)):
            self.flush()
            outer, self.pre = self.pre, True
            self._inside(element)
            self.flush()
            self.pre = outer
        elif tag in _BLOCKS:
            self.flush()
            if len(element) == 0 and element.text and "\n" in element.text and not self.pre and self.single:
                # trafilatura collapses the whitespace of text-only elements, so a newline left
                # in one comes from its fallbacks, which join separate blocks with it, or (the
                # last one) every text node of the page: then the page itself says which lines
                # are one paragraph.
                given = element.text.splitlines()
                lines = self.page_lines(element.text)
                first = len(self.out)
                for line in lines if lines is not None else given:
                    self.pieces = [line]
                    self.flush()
                if lines is not None:
                    self.reread.append((first, len(self.out), given))
            else:
                self._inside(element)
            self.flush()
        elif tag in _BREAKS:
            self.pieces.append(_LINE_BREAK)
        elif tag:
            self._inside(element)
        # comments and processing instructions contribute only their tail
        if element.tail:
            self._text(element.tail)

    def _text(self, text: str) -> None:
        if self.split_runs and self.pieces:
            last = self.pieces[-1]
            if (last and not last[-1].isspace() and last[-1] not in _OPENING and not text[0].isspace()
                    and text[0] not in _CLOSING):
                self.flush()
        self.pieces.append(text)

    def _inside(self, element: _Element) -> None:
        if element.text:
            self._text(element.text)
        for child in element:
            self.walk(child)


def _beside(text: str, tail: str | None) -> tuple[str, str]:
    """A block's text and the start of the text after it, whitespace runs as one space."""
    return " ".join(text.split()), " ".join((tail or "").split())[:32]


def _is_code_block(code: _Element, pre_texts: Callable[[], frozenset[tuple[str, str]]]) -> bool:
    """Whether a ``<code>`` of trafilatura's body is a code block rather than code in a sentence.

    trafilatura makes every ``<pre>`` a ``<code>``; one with several lines, or one on a line of
    its own directly in a block container, is a code block. Inline code whose paragraph
    trafilatura dropped around it is left in a container too, but text runs on from it on the
    same line: "<code>memfd_create()</code>, if the kernel supports it." Unless the page has a
    ``<pre>`` with that text and the same text after it (``pre_texts``: "<pre>make</pre>Then
    run it").
    """
    if "\n" in (code.text or ""):
        return True
    parent = code.getparent()
    if _tag(parent) not in _CODE_HOSTS:
        return False
    after = (code.tail or "").split("\n", 1)[0]
    previous = code.getprevious()
    before = (previous.tail if previous is not None else parent.text if parent is not None else None) or ""
    if not after.strip() and not before.rsplit("\n", 1)[-1].strip():
        return True
    beside = _beside("".join(code.itertext()), code.tail)
    return bool(beside[0]) and beside in pre_texts()


def _holds_blocks(row: _Element) -> bool:
    """Whether a table row lays out a page (paragraphs, lists... in its cells) rather than holding data."""
    return any(_tag(cell) in _BLOCKS or _tag(cell) in _ROWS for child in row for cell in child.iterdescendants())


def _tag(element: _Element | None) -> str:
    return element.tag if element is not None and isinstance(element.tag, str) else ""


def _flat_text(cell: _Element) -> str:
    """A table cell's text on one line: blocks and breaks inside it become spaces."""
    collected = _Paragraphs()
    collected._inside(cell)
    collected.flush()
    return " ".join(" ".join(collected.out).split())


def _flow_text(pieces: list[str | None]) -> str:
    if _LINE_BREAK not in pieces:  # the common case: one line
        return " ".join(unicodedata.normalize("NFC", "".join(pieces)).split())  # type: ignore[arg-type]
    lines: list[str] = []
    current: list[str] = []
    for piece in [*pieces, _LINE_BREAK]:
        if piece is _LINE_BREAK:
            line = " ".join(unicodedata.normalize("NFC", "".join(current)).split())
            if line:
                lines.append(line)
            current = []
        else:
            current.append(piece)
    return "\n".join(lines)


def _pre_text(pieces: list[str | None]) -> str:
    raw = unicodedata.normalize("NFC", "".join("\n" if piece is None else piece for piece in pieces))
    return "\n".join(line.rstrip() for line in raw.splitlines() if line.strip()).strip()


def _paragraphs(body: _Element, page: HtmlElement | None = None) -> tuple[list[str], list[str]]:
    """One text per paragraph-like element of trafilatura's ``body``, and the same as
    trafilatura gave them, which can differ only where a fallback's text-only block was read
    again from the page (``page``, the page's own tree): what it takes for running text is
    judged on the lines it gave (a login form's label, button and links are one line on the
    page, but not a sentence)."""
    collected = _Paragraphs(page)
    collected.single = len(body) == 1
    try:
        collected.walk(body)
    except RecursionError as exc:
        raise IngestError("the page's main text is nested too deeply to read") from exc
    collected.flush()
    as_extracted = list(collected.out)
    for start, end, given in reversed(collected.reread):
        as_extracted[start:end] = given
    return collected.out, as_extracted


def _has_prose(paragraphs: list[str]) -> bool:
    """Whether some line reads like running text: 7+ words, or 40+ columns in scripts without spaces."""
    for paragraph in paragraphs:
        for line in paragraph.split("\n"):
            if len(line.split()) >= 7:
                return True
            if len(line) >= 20 and sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line) >= 40:
                return True
    return False


def _join(paragraphs: list[str]) -> tuple[str, tuple[PassageDraft, ...]]:
    passages: list[PassageDraft] = []
    position = 0
    for index, paragraph in enumerate(paragraphs):
        if index:
            position += len(PARAGRAPH_SEPARATOR)
        passages.append(PassageDraft(char_start=position, char_end=position + len(paragraph), paragraph=index))
        position += len(paragraph)
    return PARAGRAPH_SEPARATOR.join(paragraphs), tuple(passages)


# --- fetching ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fetched:
    """A document as one GET returned it, after redirects."""

    url: str  #: final url after redirects
    data: bytes
    content_type: str  #: "text/html", "application/xhtml+xml" or "application/pdf"
    charset: str | None  #: from the Content-Type header, lower case
    retrieved_at: datetime  #: aware UTC, when the response arrived


def fetch(
    url: str,
    *,
    timeout: float = 20.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_redirects: int = 5,
) -> Fetched:
    """GET an http(s) URL: HTML or PDF only, at most max_bytes, at most max_redirects redirects.

    ``timeout`` (seconds) bounds the whole fetch, redirects and download included (a server
    that sends a byte now and then is cut off too), give or take one read. Proxies come from
    the usual environment variables. Only ``Content-Encoding`` gzip/deflate is decoded (ledger
    asks for none).

    Raises:
        IngestError: bad scheme, unreachable host, timeout, HTTP error status, redirect loop or
            too many redirects, a content type other than HTML/XHTML/PDF, or too large.
    """
    import urllib.error  # here, not at the top: `import ledger` stays light
    import urllib.parse
    import urllib.request
    from http.client import HTTPException

    if not isinstance(url, str):
        raise InvalidInput(f"url must be a string such as 'https://example.org/page', not {type(url).__name__}")
    for name, limit in (("timeout", timeout), ("max_bytes", max_bytes), ("max_redirects", max_redirects)):
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit >= 0 or limit == float("inf"):
            raise InvalidInput(f"{name} must be a finite number >= 0, not {limit!r:.40}")
    if timeout == 0:
        raise InvalidInput("timeout must be more than 0 seconds")
    current = _fetchable(url, shown_url(url))
    chain = [current]
    opener = _opener()
    deadline = time.monotonic() + timeout
    while True:
        request = urllib.request.Request(current, headers={"User-Agent": USER_AGENT, "Accept": _ACCEPT})
        try:
            response = opener.open(request, timeout=_remaining(deadline, current, timeout))
        except urllib.error.HTTPError as exc:
            with exc:
                if exc.code not in _REDIRECTS:
                    raise IngestError(f"{shown_url(current)} answered HTTP {exc.code} {exc.reason}") from exc
                location = exc.headers.get("Location")
            if not location:
                raise IngestError(f"{shown_url(current)} answered HTTP {exc.code} without a Location to redirect to") from exc
            target = _fetchable(_escaped(urllib.parse.urljoin(current, location.strip())),
                                f"{shown_url(current)} redirects to {shown_url(location)!r}")
            if target in chain:
                raise IngestError(f"redirect loop: {' -> '.join(map(shown_url, [*chain, target]))}") from exc
            if len(chain) > max_redirects:
                raise IngestError(
                    f"{shown_url(url)} redirects more than {max_redirects} times: {' -> '.join(map(shown_url, [*chain, target]))}"
                ) from exc
            chain.append(target)
            current = target
            continue
        except urllib.error.URLError as exc:
            raise IngestError(f"could not fetch {shown_url(current)}: {_cause(exc.reason, timeout)}") from exc
        except (OSError, HTTPException) as exc:
            raise IngestError(f"could not fetch {shown_url(current)}: {_cause(exc, timeout)}") from exc
        with response:
            return _receive(response, current, timeout, max_bytes, deadline)


def _escaped(location: str) -> str:
    """A redirect's target as browsers and urllib request it: spaces, control characters and
    the raw bytes of non-ASCII characters (http.client reads a header as ISO-8859-1)
    percent-encoded, escapes and URL punctuation kept."""
    import string
    import urllib.parse

    try:
        return urllib.parse.quote(location, safe=string.punctuation, encoding="iso-8859-1")
    except UnicodeEncodeError:  # not from http.client's headers; as UTF-8 then
        return urllib.parse.quote(location, safe=string.punctuation)


def _remaining(deadline: float, url: str, timeout: float) -> float:
    """Seconds left before ``deadline``; IngestError once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise IngestError(f"could not fetch {shown_url(url)}: timed out after {timeout:g} s; {RAISE_TIMEOUT}")
    return left


def _fetchable(url: str, what: str) -> str:
    import urllib.parse

    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:
        raise IngestError(f"{what}: not a valid URL ({exc})") from exc
    if parts.scheme.lower() not in ("http", "https"):
        scheme = f"{parts.scheme}:" if parts.scheme else "a URL without a scheme"
        raise IngestError(f"{what}: only http and https URLs can be fetched, not {scheme}")
    if not parts.hostname:
        raise IngestError(f"{what}: the URL names no host")
    if (bad := _NOT_IN_A_REQUEST.search(url)) is not None:
        # http.client would refuse it with InvalidURL, a message that repeats the whole URL
        raise IngestError(f"{what}: the URL has a space or control character ({bad.group()!r} at {bad.start()})")
    return url


#: what http.client refuses in a request target (its _contains_disallowed_url_pchar_re)
_NOT_IN_A_REQUEST: re.Pattern[str] = re.compile("[\x00-\x20\x7f]")


def _cause(reason: object, timeout: float) -> str:
    import socket
    import ssl
    from http.client import HTTPException, IncompleteRead, RemoteDisconnected

    if isinstance(reason, TimeoutError):
        return f"timed out after {timeout:g} s; {RAISE_TIMEOUT}"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused (is the server running on that port?)"
    if isinstance(reason, socket.gaierror):
        return f"could not resolve the host name ({reason.strerror or reason})"
    if isinstance(reason, RemoteDisconnected):
        return "the server closed the connection without answering"
    if isinstance(reason, ssl.SSLError):
        return f"TLS failed ({reason})"
    if isinstance(reason, ConnectionResetError):
        return "the connection was reset"
    if isinstance(reason, IncompleteRead):
        return f"the connection closed after {len(reason.partial)} bytes, before the end of the body"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    if isinstance(reason, HTTPException):
        return f"bad HTTP response ({type(reason).__name__}: {reason})"
    return str(reason) or type(reason).__name__


def _receive(response: HTTPResponse, url: str, timeout: float, max_bytes: int, deadline: float) -> Fetched:
    """Check the headers, then stream the body within max_bytes before the deadline."""
    from http.client import HTTPException

    retrieved_at = datetime.now(UTC)
    where = shown_url(url)
    headers: HTTPMessage = response.headers
    declared_type = headers.get("Content-Type")
    media = headers.get_content_type() if declared_type else None
    if media is not None and media not in _FETCHABLE_TYPES and media != "application/octet-stream":
        raise IngestError(f"{where} served {media}; ledger ingests HTML and PDF")
    length_header = (headers.get("Content-Length") or "").strip()
    length = int(length_header) if length_header.isdigit() else None
    if length is not None and length > max_bytes:
        raise IngestError(
            f"{where} is {length:,} bytes (Content-Length), over the limit of {max_bytes:,} bytes; {RAISE_MAX_BYTES}")
    decoder = _body_decoder(headers.get("Content-Encoding"), url)
    chunks: list[bytes] = []
    size = received = 0
    try:
        while True:
            # read1: what has arrived (read() would wait for a whole chunk however slowly it came)
            chunk = response.read1(_CHUNK)
            if chunk and time.monotonic() > deadline:
                raise IngestError(f"could not read {where}: timed out after {timeout:g} s "
                                  f"({received + len(chunk):,} bytes received); {RAISE_TIMEOUT}")
            received += len(chunk)
            if decoder is not None:
                chunk = decoder.decompress(chunk, max_bytes + 1 - size) if chunk else decoder.flush()
            size += len(chunk)
            if size > max_bytes:
                raise IngestError(f"{where} sent more than {max_bytes:,} bytes; refusing it ({RAISE_MAX_BYTES})")
            if not chunk:
                break
            chunks.append(chunk)
    except (OSError, HTTPException) as exc:
        raise IngestError(f"could not read {where}: {_cause(exc, timeout)}") from exc
    if length is not None and received < length:
        # http.client ends a short body quietly instead of raising IncompleteRead
        raise IngestError(f"could not read {where}: the connection closed after {received:,} of {length:,} bytes")
    data = b"".join(chunks)
    if not data.strip():
        raise IngestError(f"{where} answered HTTP {response.status} with an empty body")
    if media is None or media == "application/octet-stream":
        media = sniff_media_type(data)
        if media is None:
            raise IngestError(f"{where} served {declared_type or 'no Content-Type'}; ledger ingests HTML and PDF")
    charset = headers.get_content_charset()
    return Fetched(url=url, data=data, content_type=media, charset=charset, retrieved_at=retrieved_at)


class _Inflater:
    """Bounded gzip/deflate decoding of a response body."""

    def __init__(self, wbits: int, url: str, coding: str) -> None:
        import zlib

        self._error = zlib.error
        self._inflate = zlib.decompressobj(wbits)
        self._what = f"{shown_url(url)} sent a corrupt {coding} body"

    def decompress(self, chunk: bytes, limit: int) -> bytes:
        """Up to limit bytes decoded from what is pending plus chunk."""
        try:
            return self._inflate.decompress(self._inflate.unconsumed_tail + chunk, max(limit, 1))
        except self._error as exc:
            raise IngestError(f"{self._what} ({exc})") from exc

    def flush(self) -> bytes:
        """What is left once the body has ended."""
        try:
            return self._inflate.flush()
        except self._error as exc:
            raise IngestError(f"{self._what} ({exc})") from exc


def _body_decoder(content_encoding: str | None, url: str) -> _Inflater | None:
    coding = (content_encoding or "identity").strip().lower()
    if coding in ("identity", ""):
        return None
    if coding in ("gzip", "x-gzip"):
        return _Inflater(16 + 15, url, coding)
    if coding == "deflate":
        return _Inflater(32 + 15, url, coding)  # zlib or gzip header, detected
    raise IngestError(f"{shown_url(url)} served Content-Encoding {coding}, which ledger does not decode")


def sniff_media_type(data: bytes) -> str | None:
    """The media type of an unlabelled body: PDF by its magic number, HTML by its first tags."""
    start = data[:1024].lstrip()
    if start.startswith(b"%PDF-"):
        return "application/pdf"
    lowered = start.lower()
    if lowered.startswith((b"<!doctype html", b"<html")) or b"<html" in lowered:
        return "text/html"
    return None


def _opener() -> urllib.request.OpenerDirector:
    """An opener that hands every redirect back as an HTTPError, so fetch follows them itself."""
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    return urllib.request.build_opener(NoRedirect())
