"""The main text of a page as trafilatura's public API finds it, one text per paragraph-like element.

:func:`extract` runs ``trafilatura.bare_extraction`` (metadata included) on the mended tree;
:func:`paragraphs` walks the body tree it returns: paragraphs, headings, list items, table rows
(cells joined by ``" | "``), quote paragraphs and code blocks each become one text.
"""

from __future__ import annotations

import copy
import unicodedata
from bisect import bisect_left
from collections.abc import Callable
from datetime import date
from itertools import accumulate, islice
from typing import TYPE_CHECKING, Any

from ledger.errors import IngestError

if TYPE_CHECKING:
    from lxml.etree import _Element
    from lxml.html import HtmlElement

__all__ = ["CELL_SEPARATOR", "MAX_SEARCHED_ELEMENTS", "extract", "has_prose", "nothing_read", "paragraphs"]

CELL_SEPARATOR = " | "

#: htmldate's search of a page's free text takes time growing with the square of the page (3 s at
#: 33,000 elements, 15 s at 52,000, minutes beyond): on larger pages, source listings and manuals
#: rather than articles, only the date markup is searched.
MAX_SEARCHED_ELEMENTS = 30_000


def extract(tree: HtmlElement, text: str, url: str | None, where: str) -> dict[str, Any]:
    """trafilatura's reading of the page (``trafilatura.bare_extraction`` with its metadata, no
    comments, tables and images kept) as a dict: its metadata fields and ``body``, the main
    text's tree. ``text`` is the page as parsed (to tell why nothing was found)."""
    import trafilatura  # heavy: `import ledger` stays cheap

    searched = sum(1 for _ in islice(tree.iter(), MAX_SEARCHED_ELEMENTS + 1)) <= MAX_SEARCHED_ELEMENTS
    dates = {"original_date": True, "extensive_search": searched, "max_date": date.today().isoformat()}
    try:
        document = trafilatura.bare_extraction(
            tree, url=url, with_metadata=True, include_comments=False, include_tables=True, include_images=True,
            include_links=False, include_formatting=False, output_format="xml", date_extraction_params=dates,
        )
    except RecursionError as exc:
        raise IngestError(f"{where} is nested too deeply to read") from exc
    except Exception as exc:  # a parser failure deep inside a third-party library
        raise IngestError(f"{where} could not be parsed as HTML: {type(exc).__name__}: {exc}") from exc
    if document is None:
        raise nothing_read(text, where)
    fields = document if isinstance(document, dict) else document.as_dict()
    if fields.get("body") is None:
        raise IngestError(f"{where} contains no main text (trafilatura returned no body)")
    return fields


def nothing_read(text: str, where: str) -> IngestError:
    """The error for a page in which nothing could be read (``text``: the page as parsed)."""
    if _too_deep(text):
        return IngestError(
            f"{where} nests its elements deeper than the HTML parser's limit (256 levels); "
            "the text below that depth cannot be read"
        )
    return IngestError(
        f"{where} contains no main text; is it a navigation or login page? (trafilatura extracted nothing)"
    )


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
            if body is not None:
                read = _Paragraphs(split_runs=True)
                read.walk(_cleaned(copy.deepcopy(body)))
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
        """End the paragraph being collected (if it holds any text)."""
        if self.pieces:
            text = _pre_text(self.pieces) if self.pre else _flow_text(self.pieces)
            self.pieces = []
            if text:
                self.out.append(text)

    def walk(self, element: _Element) -> None:
        """Collect an element of trafilatura's body tree and its tail."""
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


def paragraphs(body: _Element, page: HtmlElement | None = None) -> tuple[list[str], list[str]]:
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


def has_prose(paragraphs: list[str]) -> bool:
    """Whether some line reads like running text: 7+ words, or 40+ columns in scripts without spaces."""
    for paragraph in paragraphs:
        for line in paragraph.split("\n"):
            if len(line.split()) >= 7:
                return True
            if len(line) >= 20 and sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line) >= 40:
                return True
    return False



# What trafilatura's last fallback leaves out of the page before it reads every text node.
_NOT_READ = ("aside", "footer", "script", "style", "svg", "template", "fencedframe")


def _cleaned(body: HtmlElement) -> HtmlElement:
    """The page's body without asides, footers, scripts and styles (each with its text, its tail
    kept), as the last fallback of trafilatura reads it; a cookie banner or the like it also
    leaves out only makes :meth:`_Paragraphs.page_lines` keep trafilatura's lines."""
    doomed = [element for element in body.iter(*_NOT_READ, "div")
              if element.tag != "div" or "footer" in (element.get("class") or "") + (element.get("id") or "")]
    for element in doomed:
        if element.getparent() is not None:
            element.drop_tree()
    return body
