"""Read a PDF into a source draft: text in reading order, one passage per line.

The ingester is pure: bytes in, :class:`~ledger.ingest.base.SourceDraft` out, no
database. pymupdf is imported on first use so that ``import ledger`` stays cheap.

Text layout of ``SourceDraft.text``
    Lines of a paragraph are joined by ``"\\n"`` (pieces of one row that mupdf cut apart by a
    space, or by nothing where they touch: see Reading order); paragraphs (blocks) by ``"\\n\\n"``;
    pages by ``"\\n\\n"`` as well, so any paragraph splitter sees page ends as paragraph
    ends. Page boundaries are not marked in the text: each passage carries its page.
    A line only OCR can read is left out: one where more than half of the characters that are
    not spaces, and at least three, are glyphs without a Unicode mapping (U+FFFD: a font
    embedded without its ToUnicode map) or ASCII letters with their two bytes swapped; a line with fewer
    (a formula's lone symbol) keeps them as U+FFFD. A page that would keep less than a tenth of
    its characters keeps none.
    Pages left with no line contribute nothing (no empty separators) and are listed in
    ``pages_without_text`` (scans too); pages that kept lines but lost others are listed in
    ``pages_partly_unreadable``. The text neither starts nor ends with whitespace.

Glyphs without a Unicode mapping
    Before a line is judged, such a glyph is read as its character code where the code is a
    character: its font is a simple font (Type1, TrueType) with a standard encoding or none
    (Windows-1252, what producers put there; Mac Roman; StandardEncoding's ASCII) and no
    /Differences, none of its unmapped codes on the page is a control code, and they spell a
    word somewhere on the page (three letters in a row: not the arrows and boxes of a pi font;
    nor ever a known symbol font's, Wingdings, Symbol, ZapfDingbats and the like).
    A Type0 (CID) font's codes are glyph numbers under Identity-H and are never read; nor are
    Type3 fonts'. Characters mupdf mapped never change.

Passages
    One :class:`~ledger.ingest.base.PassageDraft` per text line, in text order, never
    overlapping: ``page`` (1-based), ``bbox`` (x0, y0, x1, y1) of the line as pymupdf
    reports it (points, origin top-left, unrotated page), ``paragraph`` (0-based index
    of the paragraph in the whole document) and ``char_start``/``char_end`` into the
    text. ``text[char_start:char_end]`` is the line's normalized text: stripped of
    surrounding whitespace, and without its trailing hyphen when it was joined.

Normalization of each line
    Ligatures expanded (pymupdf runs without ``TEXT_PRESERVE_LIGATURES``, which also folds
    presentation forms, and any remaining U+FB00..U+FB06 is mapped: "ﬁ" -> "fi", "ﬅ"/"ﬆ" ->
    "st"), and a space that a producer drew back inside an ff/fi/fl/ffi/ffl ligature dropped
    ("Erﬁ nder" -> "Erfinder": the space starts before the ligature ends and the next letter
    less than 0.1 em after it; "staﬀ arrived" keeps its space); soft hyphens
    (U+00AD) removed; whitespace, including U+2028/U+2029 and the control codes that are
    whitespace (tab, line breaks, separators), becomes plain spaces (pymupdf also runs without
    ``TEXT_PRESERVE_WHITESPACE``); other control codes, which only a font's broken encoding
    yields, become U+FFFD like glyphs without a Unicode mapping; NFC.
    Curly quotes, dashes and every other character are kept as written.

De-hyphenation
    When a line ends in a letter followed by "-" (U+002D), "‐" (U+2010) or a soft
    hyphen, and the next line of the same paragraph starts with a lowercase letter,
    the two are joined into one word: the hyphen and the line break are dropped.
    The first line's passage then ends before the hyphen and the second line's passage
    starts right where the first ends (``a.char_end == b.char_start``), so
    "hyphen-" / "ated" gives the text "hyphenated" with passages "hyphen" and "ated".
    The next line may be in another mupdf block if it lies right under the first (less
    than a line height below, overlapping it across): mupdf starts a block where the
    indent changes (hanging indents, description lists), and the broken word joins its
    paragraphs into one. Lines are never joined across columns or pages, and a hyphen
    before an uppercase letter or a digit ("Just-in-" / "Time") is kept with its line
    break.

Drop capitals
    A line that is one capital letter, with the first two lines of a paragraph beside it
    (the first starting within an em of it, at its top, in lower case), is the first
    letter of that paragraph's first word: the two are joined with nothing between them
    ("T" + "he archive" -> "The archive"). Not the capitals that are often words of their
    own ("I" + "was born"; A E I O U Y, and Cyrillic and Greek ones): they stay apart.

Reading order
    Lines are ordered geometrically per page by a recursive XY-cut on their bboxes: a
    region is split into columns where a vertical gap wider than 5 pt crosses it (when
    at least two of the columns hold two rows or more, so that a run-in heading such
    as "Keywords  JavaScript, tracing" is not taken for a column), otherwise into
    horizontal bands; consecutive bands that share a gutter are read as one
    multi-column region. Columns are not columns when a horizontal gap wider than their
    gutters cuts the region into two parts with no columns in either (a title page: the
    title at the left, the subtitle at the right, the author at the foot): the region is
    cut there instead. A line or two at the foot (or head) of a region that reach across
    its gutter and touch no line over or under them, only lines beside them and not level
    with them (a running foot whose box reaches up into a "Continued" set large at the foot
    of a column), are set apart as a band of their own when that leaves real columns. A
    two-column page thus reads down the left column, then the right one, with full-width
    titles, figures and footers in their place, whatever order the content stream drew the
    lines in. Rows are told apart by the lines'
    middles (line boxes are taller than the leading of most text, so the lines of one
    column touch). A column of labels is not a column of text: when every line of a
    column is narrow (at most four line heights wide), at least 80% of them sit on rows
    of the column beside it (the one to the right is tried first), and they number at
    least 80% of that column's rows alongside them (section and page numbers in a table
    of contents, line numbers of a listing, the cells of a table), the two are read
    together, row by row, each row left to right. A column of single words beside a
    paragraph, one on each of its rows, is read that way too: it looks like a table. A
    column of list marks (bullets, "1.") inside the text, each level with a line just to
    its right, goes with that column however few of its rows it marks (items that wrap).
    Lines that do not run left to right (rotated margin stamps, axis labels) follow the
    page's other lines. A page written in vertical columns (Japanese, Chinese) that mupdf gives
    one character to a line, each right under the one before, is read as if turned (x, y) ->
    (y, -x): column by column from the right, each from top to bottom, a character to a line.
    A paragraph is a run of lines from one pymupdf block that continues downward in reading
    order.

Right-to-left text
    mupdf gives Hebrew and Arabic lines with ``dir`` "1 0" like any other and each line's
    characters in logical order (it reverses runs a producer drew from left to right), but cuts
    a line into pieces where a run of the other direction starts (a number, a Latin word):
    "עם מספרים כמו 2024" / " ו-" / "15.5" / " אחוזים,", right to left. On a page holding a
    character whose Unicode bidirectional class is R or AL (``unicodedata.bidirectional``; a
    page of ASCII or without any such character is never looked at twice), a page whose strong
    characters are mostly right to left is laid out in mirror image: its columns read from right
    to left. Lines of one row that come one after the other (the pieces of a line, labels and
    table cells read row by row) then read in the order of their text, as the Unicode
    bidirectional algorithm orders runs: a row of mostly right-to-left text from right to left,
    a run of left-to-right pieces in it (a Latin phrase) from left to right; a row of mostly
    left-to-right text (a line of code on a Hebrew page) the other way round. A piece without
    strong characters (a number, a dash) goes with its neighbours when both agree, else with its
    row. So the text reads as a viewer copies it: "עם מספרים כמו 2024 ו-15.5 אחוזים,".

Metadata
    ``title`` and ``author`` from the document information; ``published_at`` from its
    creationDate and ``modified_at`` from its modDate as aware UTC datetimes (None when
    absent or malformed; a date without a time zone is read as UTC, see
    :func:`parse_pdf_date`); every non-empty entry pymupdf reports (format, producer,
    the dates as written, ...) in ``metadata``; ``page_count`` counts every page.

Extraction
    Lines and their bboxes come from mupdf's structured-text XML (one C call per page,
    parsed with a regular expression), which costs about what ``page.get_text()`` does;
    pymupdf's "dict" output gives the same lines more slowly and is used where the XML
    call is missing. Text is read unclipped: lines wholly outside the page (hidden
    off-page text) are dropped, a line reaching over the page edge is kept whole with
    its bbox (clipping each character would cost a tenth of the extraction time).

Errors
    Every unreadable input raises :class:`~ledger.errors.IngestError` saying what is
    wrong and what to do: empty or oversized data, not a PDF (HTML, text, other
    binary), damaged or truncated files (including files pymupdf can only repair by
    dropping page content), encrypted files without or with a wrong password, and page
    trees claiming more than ``max_pages`` pages.
"""

from __future__ import annotations

import os
import re
import string
import threading
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta, timezone
from itertools import accumulate, compress, islice, repeat
from operator import itemgetter, lt, not_
from pathlib import Path
from typing import Any, Final
from unicodedata import east_asian_width

from ledger.errors import IngestError
from ledger.ingest.base import BBox, PassageDraft, SourceDraft, check_size, content_hash

__all__ = ["parse_pdf_date", "read_pdf", "read_pdf_file"]

DEFAULT_MAX_BYTES: Final = 200 * 2**20
DEFAULT_MAX_PAGES: Final = 5000

#: a line: bbox, normalized text, pymupdf block number, whether it ended in a soft hyphen,
#: whether it runs left to right (within about 6 degrees; rotated lines are set apart), whether
#: it starts and whether it ends with a space glyph (which its bbox covers and its text leaves out)
_Line = tuple[BBox, str, int, bool, bool, bool, bool]
_Matrix = tuple[float, float, float, float, float, float]

_LINE_SEP: Final = "\n"
_PARAGRAPH_SEP: Final = "\n\n"
_PAGE_SEP: Final = "\n\n"
#: a vertical gap wider than this (points) separates columns: under LaTeX's 5 TeX points (4.98 pt,
#: the gap of ltxdoc's macro names in the margin), so that margin notes stand apart; over a 9 pt
#: typewriter space (4.71 pt), which indents code listings. Measured on 740 texlive PDFs.
_COLUMN_GAP: Final = 4.9
#: a column whose lines are at most this many line heights wide may be labels of the
#: column beside it (numbers, table cells), read with it row by row
_LABEL_WIDTH: Final = 4.0
#: ... when at least this share of its lines sits on rows of that column, and its lines
#: number at least this share of that column's rows alongside them
_LABELS_ON_ROWS: Final = 0.8
#: a column of marks, lines at most this many line heights wide (bullets, dashes, "1.", "(iv)"),
#: each on a row of the column to its right, less than _MARK_GAP line heights from it and
#: inside the text (not in a margin), marks the items of a list: it is read with that column
#: row by row however few of its rows it marks (items that wrap over several lines).
#: Measured on 4,600 Apache FOP and 4,000 texlive pages: bullets and numbers 0.26-0.65,
#: "2.1"-style numbers up to 1.5; table cells of short words lie 3-10 line heights away.
_MARK_WIDTH: Final = 1.5
_MARK_GAP: Final = 2.5
#: a line starting this far (points) above the previous one starts a new paragraph
_RISE: Final = 1.0
#: pieces of one line, in line heights: closer than _TOUCHING they touch (a word cut in two,
#: unless a space glyph ends the first or starts the second, or a capital starts it); up to
#: _BESIDE apart a space stands between them (wider gaps part columns and table cells)
_TOUCHING: Final = 0.1
_BESIDE: Final = 0.6
#: at most this many lines at a region's foot (or head) are set apart when they alone, touching
#: only lines beside them, keep it from being cut into columns (a running foot)
_EDGE_LINES: Final = 2
_HYPHENS: Final = frozenset("-\u2010")
_END_OF_PAGE: Final[_Line] = ((0.0, 0.0, 0.0, 0.0), "", -1, False, True, False, False)
_SOFT_HYPHEN: Final = "\u00ad"

_LIGATURES: Final = {
    0xFB00: "ff",
    0xFB01: "fi",
    0xFB02: "fl",
    0xFB03: "ffi",
    0xFB04: "ffl",
    0xFB05: "st",
    0xFB06: "st",
}
#: C0 and C1 control codes: the whitespace ones a space, the others (a font's broken encoding) U+FFFD
_CONTROL_CODES: Final = {c: " " if chr(c).isspace() else "\ufffd" for c in (*range(0x20), *range(0x7F, 0xA0))}
_TRANSLATION: Final[dict[int, str | None]] = {
    **_CONTROL_CODES,
    **{c: " " for c in (0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F)},
    **{c: " " for c in (0x205F, 0x3000)},
    **_LIGATURES,
    0x00AD: None,
}
#: the same for lines joined by newlines: the newlines stay
_BLOCK_TRANSLATION: Final = {k: v for k, v in _TRANSLATION.items() if k != 0x0A}
#: a character _BLOCK_TRANSLATION changes: substituting the few there are is cheaper than
#: str.translate over a whole page
_TRANSLATED: Final = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(_BLOCK_TRANSLATION)) + "]")

#: the start of a <block> or a whole <line bbox="x0 y0 x1 y1" ... dir="dx dy" ...
#: text="..."/> element of mupdf's stext XML
_XML_ITEM: Final = re.compile(
    r'<(b)lock |<line bbox="([^"]*)"[^>]*? dir="([^"]*)"[^>]*? text="([^"]*)"'
)
_UPRIGHT: Final = "1 0"
#: the largest |dy| of a line's unit direction still read as a horizontal line
_SKEW: Final = 0.1
_XML_ENTITY: Final = re.compile(r"&(?:#x([0-9a-fA-F]+)|#([0-9]+)|([a-z]+));")
_XML_NAMED: Final = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}

#: tests set this to False to check the XML fast path against pymupdf's "dict" output
_PREFER_XML = True

#: producers' slips are forgiven: a doubled apostrophe ("+01'00''", a Brother scanner's), a
#: one-digit or doubly signed hour ("--5'00'" for -05'00')
_PDF_DATE: Final = re.compile(
    r"(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?"
    r"(?:Z(?:00'*(?:00'*)?)?|([+-])[+-]?(\d{1,2})'*(?:(\d{2})'*)?)?"
)


# --- public API -------------------------------------------------------------------


def read_pdf(
    data: bytes,
    *,
    uri: str | None = None,
    password: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> SourceDraft:
    """Read PDF bytes into a draft with text in reading order and one passage per line.

    Pages without a usable text layer (none, or only lines of mostly unmapped glyphs) do not
    raise; they are listed in ``SourceDraft.pages_without_text`` for the caller to decide (OCR
    or refuse), and pages that lost some lines so in ``SourceDraft.pages_partly_unreadable``.

    Raises:
        IngestError: empty or oversized input, not a PDF, damaged or truncated file,
            encrypted without (or with a wrong) password, more pages than ``max_pages``.
    """
    label = _label(uri)
    if not isinstance(data, bytes | bytearray | memoryview):
        raise IngestError(f"read_pdf takes the document's bytes, not {type(data).__name__}")
    data = bytes(data)
    _check_bytes(data, label, max_bytes)
    pymupdf = _pymupdf()
    with _MUPDF:
        page_count, pages, turned, partly, metadata = _read_document(data, label, password, max_pages, pymupdf)
    text, passages, without_text = _assemble(pages)
    if turned:  # back to pymupdf's (unrotated) coordinates, as its words and search_for give them
        passages = tuple(p._replace(bbox=_transformed(p.bbox, turned[p.page])) if p.page in turned and p.bbox else p
                         for p in passages)
    return SourceDraft(
        kind="pdf",
        text=text,
        content_hash=content_hash(data),
        passages=passages,
        uri=uri,
        title=metadata.get("title") or None,
        author=metadata.get("author") or None,
        published_at=_believable(parse_pdf_date(metadata.get("creationDate"))),
        modified_at=_believable(parse_pdf_date(metadata.get("modDate"))),
        page_count=page_count,
        metadata=metadata,
        pages_without_text=without_text,
        pages_partly_unreadable=partly,
    )


#: the security handler of a PDF encrypted for certificates, named in its /Encrypt dictionary
_PUBLIC_KEY_SECURITY: Final = re.compile(rb"/Filter\s*/Adobe\.PubSec\b")
#: mupdf's warnings, which tell a damaged stream, go to one buffer for the whole process; and
#: pymupdf does not support threads. One document is read at a time.
_MUPDF: Final = threading.Lock()


def _read_document(
    data: bytes, label: str, password: str | None, max_pages: int, pymupdf: Any
) -> tuple[int, list[list[_Line]], dict[int, _Matrix], tuple[int, ...], dict[str, str]]:
    """(page count, each page's lines, the matrices of turned pages, the pages partly unreadable,
    metadata): see _read_pages."""
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except _errors(pymupdf) as exc:
        if _PUBLIC_KEY_SECURITY.search(data):
            raise IngestError(
                f"{_cap(label)} is encrypted for the holders of certificates (public-key security, "
                "/Adobe.PubSec), which pymupdf cannot open; decrypt it with the recipient's certificate "
                "and private key first (Acrobat or pyHanko can), then ingest the decrypted file"
            ) from exc
        raise IngestError(
            f"{_cap(label)} is damaged or truncated and cannot be opened ({exc}); "
            "re-download or re-export it"
        ) from exc
    try:
        if doc.is_repaired and _cut_short(data):
            # An interrupted download: what mupdf rebuilds can lack the fonts and objects
            # stored last, and read as garbage or as pages without text.
            raise IngestError(
                f"{_cap(label)} is damaged or truncated: its last object is not followed by the %%EOF "
                "marker that ends every complete PDF, and pymupdf had to repair it; re-download or re-export it"
            )
        _unlock(doc, label, password)
        page_count = _page_count(doc, label, max_pages, pymupdf)
        pages, turned, partly = _read_pages(doc, page_count, label, pymupdf)
        metadata = _metadata(doc)
    finally:
        doc.close()
    return page_count, pages, turned, partly, metadata


def read_pdf_file(
    path: str | os.PathLike[str],
    *,
    uri: str | None = None,
    password: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> SourceDraft:
    """Read a PDF file with :func:`read_pdf`; ``uri`` defaults to the file's ``file:`` URI.

    Raises:
        IngestError: the file is missing, a directory or unreadable, or as read_pdf.
    """
    try:
        file = Path(path)
    except TypeError as exc:
        raise IngestError(f"a PDF path is a str or os.PathLike, not {type(path).__name__}") from exc
    shown = _shorten(str(file))
    if "\x00" in str(file):
        raise IngestError(f"the path {shown!r} contains a NUL character; no file can have it")
    try:
        size = file.stat().st_size
        if file.is_dir():
            raise IngestError(f"{shown!r} is a directory, not a PDF file")
        check_size(size, _cap(_label(uri or file.as_posix())), max_bytes)
        data = file.read_bytes()
    except FileNotFoundError as exc:
        raise IngestError(f"no such file: {shown!r}; check the path") from exc
    except IsADirectoryError as exc:
        raise IngestError(f"{shown!r} is a directory, not a PDF file") from exc
    except OSError as exc:
        raise IngestError(f"cannot read {shown!r}: {exc.strerror or exc}") from exc
    if uri is None:
        uri = file.resolve().as_uri()
    return read_pdf(data, uri=uri, password=password, max_bytes=max_bytes, max_pages=max_pages)


def parse_pdf_date(value: str | None) -> datetime | None:
    """Parse a PDF date such as ``D:20240101120000+01'00'`` into an aware UTC datetime.

    Missing trailing fields default to the start of the period; a date without a
    time zone is taken as UTC. Malformed or impossible dates give None.
    """
    if not value:
        return None
    match = _PDF_DATE.fullmatch(value.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, sign, tz_hours, tz_minutes = match.groups()
    try:
        offset = timedelta(0)
        if sign:
            offset = timedelta(hours=int(tz_hours), minutes=int(tz_minutes or 0))
            if sign == "-":
                offset = -offset
        stamp = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=timezone(offset),
        )
        return stamp.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


#: No PDF was made before PDF 1.0 (1993): earlier dates are placeholders, such as the Unix epoch
#: a reproducible build (SOURCE_DATE_EPOCH=0) writes.
_FIRST_PDF: Final = datetime(1993, 1, 1, tzinfo=UTC)


def _believable(stamp: datetime | None) -> datetime | None:
    """``stamp`` unless it is before 1993 or more than a day ahead of now (a wrong clock)."""
    if stamp is None or not _FIRST_PDF <= stamp <= datetime.now(UTC) + timedelta(days=1):
        return None
    return stamp


# --- opening and checking -----------------------------------------------------------


def _pymupdf() -> Any:
    import pymupdf

    return pymupdf


def _errors(pymupdf: Any, *more: type[Exception]) -> tuple[type[Exception], ...]:
    """The exceptions pymupdf raises for unreadable documents (plus ``more``)."""
    return (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase, *more)


def _label(uri: str | None) -> str:
    """How messages name the document: its URI when known."""
    return f"PDF {_shorten(uri)!r}" if uri else "the PDF"


def _shorten(text: str, limit: int = 160) -> str:
    """``text`` cut in the middle to at most about ``limit`` characters, for messages."""
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-(limit // 3):]}"


def _cap(label: str) -> str:
    return label[:1].upper() + label[1:]


def _check_bytes(data: bytes, label: str, max_bytes: int) -> None:
    check_size(len(data), _cap(label), max_bytes)
    if not data:
        raise IngestError(
            f"{_cap(label)} is empty (0 bytes); check that the file was fully written"
        )
    if b"%PDF-" not in data[:1024]:
        raise IngestError(f"{_cap(label)} is not a PDF: {_sniff(data)}; it has no %PDF- header")


def _sniff(data: bytes) -> str:
    """Say what non-PDF bytes look like, for the error message."""
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<!doctype html", b"<html")) or b"<html" in head[:256]:
        return f"it looks like HTML (starts with {data[:30]!r}); ingest it as a web page"
    if head.startswith(b"<"):
        return f"it looks like XML or markup (starts with {data[:30]!r})"
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return f"it is binary data of another kind (starts with {data[:16]!r})"
    return f"it looks like plain text (starts with {data[:30]!r}); ingest it as text"


def _unlock(doc: Any, label: str, password: str | None) -> None:
    if not doc.needs_pass:
        return
    if password is None:
        raise IngestError(
            f"{_cap(label)} is encrypted; pass its password (password=..., or ledger ingest --password) to read it")
    if not doc.authenticate(password):
        raise IngestError(
            f"wrong password for {label}: the password given does not open it; "
            "check the password"
        )


def _page_count(doc: Any, label: str, max_pages: int, pymupdf: Any) -> int:
    claimed = _claimed_page_count(doc, pymupdf)
    if claimed is not None and claimed > max_pages:
        raise IngestError(
            f"{_cap(label)} claims {claimed} pages; the limit is {max_pages} "
            "(if the document is genuine, pass a larger max_pages: ledger ingest --max-pages)"
        )
    try:
        count = int(doc.page_count)
    except _errors(pymupdf) as exc:
        raise IngestError(
            f"{_cap(label)} is damaged or truncated: its page tree cannot be read ({exc}); "
            "re-download or re-export it"
        ) from exc
    if count > max_pages:
        raise IngestError(
            f"{_cap(label)} claims {count} pages; the limit is {max_pages} "
            "(if the document is genuine, pass a larger max_pages: ledger ingest --max-pages)"
        )
    if count == 0:
        raise IngestError(
            f"{_cap(label)} has no pages; it is damaged or truncated - re-download or re-export it"
        )
    return count


def _claimed_page_count(doc: Any, pymupdf: Any) -> int | None:
    """The /Count of the page tree root, read without building the page tree."""
    try:
        kind, ref = doc.xref_get_key(doc.pdf_catalog(), "Pages")
        if kind != "xref":
            return None
        kind, value = doc.xref_get_key(int(ref.split()[0]), "Count")
        return int(value) if kind == "int" else None
    except _errors(pymupdf, IndexError):
        return None


def _cut_short(data: bytes) -> bool:
    """Whether the file ends before the %%EOF that closes its last object (padding or a page
    appended after a complete file do not count)."""
    return data.rfind(b"%%EOF") < max(data.rfind(b"endobj"), data.rfind(b"endstream"))


def _lost_content(doc: Any, page_number: int) -> bool:
    """True if the page's /Contents points at objects that do not exist (repaired file)."""
    xref = doc.page_xref(page_number)
    kind, value = doc.xref_get_key(xref, "Contents")
    if kind not in ("xref", "array"):
        return False
    length = doc.xref_length()
    for number in (int(n) for n in re.findall(r"(\d+) \d+ R", value)):
        if number >= length or not doc.xref_is_stream(number):
            return True
    return False


def _metadata(doc: Any) -> dict[str, str]:
    raw = doc.metadata or {}
    # UTF-16 strings padded with NULs (some producers write them) would be refused by the store
    cleaned = {str(key): value.replace("\x00", "").strip() for key, value in raw.items() if isinstance(value, str)}
    return {key: value for key, value in cleaned.items() if value}


# --- text extraction ---------------------------------------------------------------


def _read_pages(
    doc: Any, page_count: int, label: str, pymupdf: Any
) -> tuple[list[list[_Line]], dict[int, _Matrix], tuple[int, ...]]:
    """Each page's lines; for each page turned by /Rotate (1-based), the matrix that takes
    its lines' boxes back to pymupdf's unrotated coordinates; and the pages (1-based) that kept
    some lines but lost others as unreadable (see :func:`_readable`).

    A turned page's text is laid out as the page is shown (mupdf reads it through the page's
    rotation), so a landscape page reads like any other.
    """
    # flags 0: ligatures expanded (and presentation forms folded), whitespace normalized, no
    # images. Not TEXT_MEDIABOX_CLIP: clipping every character costs about 10% of the
    # extraction; lines wholly off the page are dropped in _on_page instead.
    use_xml = _PREFER_XML and hasattr(pymupdf.mupdf, "fz_print_stext_page_as_xml_with_flags")
    repaired = bool(doc.is_repaired)
    pages: list[list[_Line]] = []
    turned: dict[int, _Matrix] = {}
    partly: list[int] = []
    for number in range(page_count):
        try:
            if repaired and _lost_content(doc, number):
                raise IngestError(
                    f"{_cap(label)} is damaged or truncated: page {number + 1} lost its content "
                    "(pymupdf had to repair the file); re-download or re-export it"
                )
            pymupdf.TOOLS.reset_mupdf_warnings()
            page = doc.load_page(number)
            turn = page.rotation_matrix if page.rotation % 360 else None  # text laid out as shown
            lines = None
            if use_xml:
                textpage = page.get_textpage(flags=0, matrix=turn)
                lines = _xml_lines(textpage, pymupdf)
                area = tuple(page.rect if turn else textpage.rect)  # where the lines' coordinates are
            if lines is None:  # pymupdf clips characters itself unless told not to
                lines = _dict_lines(page.get_textpage(clip=pymupdf.INFINITE_RECT(), flags=0, matrix=turn), pymupdf)
                area = tuple(page.rect if turn else page.rect * page.derotation_matrix)
            if damage := _DAMAGED.search(pymupdf.TOOLS.mupdf_warnings()):
                raise IngestError(
                    f"{_cap(label)} is damaged: the content of page {number + 1} cannot be decoded "
                    f"({damage[0].strip()}), so its text would be incomplete; re-download or re-export it"
                )
            lines = _on_page(lines, area)
            if turn is not None and lines:
                turned[number + 1] = tuple(page.derotation_matrix)
            if lines and _has_unmapped(lines):  # rare: glyphs without a Unicode mapping
                readable = _readable(_coded(doc, page, lines, turn, pymupdf))
                if readable and len(readable) < len(lines):
                    partly.append(number + 1)
                lines = readable  # none: listed with the pages that have no text layer
        except IngestError:
            raise
        except _errors(pymupdf) as exc:
            raise IngestError(
                f"page {number + 1} of {label} cannot be read; the file is damaged or "
                f"truncated ({exc}); re-download or re-export it"
            ) from exc
        pages.append(lines)
    return pages, turned, tuple(partly)


#: what mupdf warns when a compressed stream a page's text comes from is corrupt, or the object
#: stream holding the page's content cannot be loaded: it then reads on with what it could
#: decode. Not seen once in 1,065 undamaged PDFs (TeX Live, and non-LaTeX producers from cairo
#: to Word; the object-stream warnings in none of 1,418 with pymupdf's and pyHanko's test files);
#: seen whenever a flipped byte changed a page's text.
_DAMAGED: Final = re.compile(
    r"[^\n]*(?:zlib error|corrupt object stream|cannot load object stream|content stream is not a stream)[^\n]*"
)


def _transformed(box: BBox, matrix: _Matrix) -> BBox:
    """A box through a matrix (a b c d e f) that turns by a multiple of 90 degrees."""
    a, b, c, d, e, f = matrix
    x0, y0, x1, y1 = box
    xs = (a * x0 + c * y0 + e, a * x1 + c * y1 + e)
    ys = (b * x0 + d * y0 + f, b * x1 + d * y1 + f)
    return (min(xs), min(ys), max(xs), max(ys))


def _has_unmapped(lines: Sequence[_Line]) -> bool:
    """Whether some character of a page is a glyph without a Unicode mapping (U+FFFD) or has
    its two bytes swapped (see :func:`_unmapped`)."""
    text = "".join([line[1] for line in lines])
    return "\ufffd" in text or (not text.isascii() and _BYTE_SWAPPED.search(text) is not None)


def _unmapped(text: str) -> int:
    """How many of a line's characters are glyphs that have no Unicode mapping, or letters whose
    two bytes were swapped, if they are more than half of its characters (spaces aside): only OCR
    can read it; else 0."""
    bad = text.count("\ufffd")
    if not text.isascii():
        bad += len(_BYTE_SWAPPED.findall(text))
    return bad if bad * 2 > _characters(text) else 0


def _readable(lines: list[_Line]) -> list[_Line]:
    """A page's lines without those only OCR can read (see :func:`_unmapped`): a line that is
    mostly glyphs without a Unicode mapping, at least _UNREAD_WORD of them (a word's worth of
    text), is left out; one with fewer (a formula's symbol, a note of music alone on its line)
    keeps them as U+FFFD, as a line with a few among its letters does. A page that keeps less
    than a tenth of its characters (a running head above a page in a broken font, or what a
    broken encoding made look like text) has no text layer to speak of: none is kept."""
    unreadable = [_unmapped(line[1]) for line in lines]
    kept = [line for line, bad in zip(lines, unreadable) if bad < _UNREAD_WORD]
    if len(kept) < len(lines) and _glyphs(kept) * _LEAST_READABLE < _glyphs(lines):
        return []
    return kept


#: a line of mostly unmapped glyphs is left out when it has at least this many
_UNREAD_WORD: Final = 3
#: a page that keeps less than one in this many of its characters (spaces aside) keeps none
_LEAST_READABLE: Final = 10


def _glyphs(lines: Sequence[_Line]) -> int:
    """How many characters the lines hold, spaces aside."""
    return sum(_characters(line[1]) for line in lines)


def _characters(text: str) -> int:
    """How many characters ``text`` holds, spaces aside."""
    return len(text) - text.count(" ")


def _coded(doc: Any, page: Any, lines: list[_Line], turn: Any, pymupdf: Any) -> list[_Line]:
    """The lines with each glyph that has no Unicode mapping read as its character code where
    the code is a character: the glyph's font is a simple font (Type1, TrueType: one byte a
    glyph) whose encoding is a standard one or none (which producers fill with Windows-1252
    codes), with no /Differences renaming codes; none of its unmapped codes on the page is a
    control code (a font numbering its glyphs 1, 2, 3 as it uses them); and its codes spell a
    word on the page (three letters in a row: the arrows and boxes of a pi font, one here and
    there, are not read as the letters their codes stand for). Type3 and Type0 (CID) fonts are
    never read so: a CID under Identity-H is a glyph index, not a character.

    Only U+FFFD changes, only where mupdf's text page read with TEXT_USE_CID_FOR_UNKNOWN_UNICODE
    has a line with the same bbox and, spaces and unmapped glyphs aside, the same text; every
    character mupdf mapped stays as it is.
    """
    mupdf = pymupdf.mupdf
    is_code = getattr(mupdf, "FZ_STEXT_UNICODE_IS_CID", None)  # an older mupdf does not mark such characters
    wanted = {_box_key(line[0]) for line in lines if "\ufffd" in line[1]}  # where codes can be read
    if is_code is None or not wanted or not (tables := _code_tables(doc, page)):
        return lines
    font_name = mupdf.ll_fz_font_name
    textpage = page.get_textpage(flags=pymupdf.TEXT_USE_CID_FOR_UNKNOWN_UNICODE, matrix=turn)
    coded: dict[tuple[float, ...], list[tuple[str, str | None]]] = {}
    spelling: set[str] = set()  # fonts whose codes spell a word
    controls: set[str] = set()  # fonts with a control code among their unmapped codes, or no table
    for block in textpage.this:  # textpage is kept alive while its blocks are walked
        if block.m_internal.type != 0:
            continue
        for line in block:
            box = line.m_internal.bbox
            if (key := _box_key((box.x0, box.y0, box.x1, box.y1))) not in wanted:
                continue  # every glyph mapped: no character of it is read from its code
            chars: list[tuple[str, str | None]] = []
            run, last = 0, None
            for char in (item.m_internal for item in line):
                code, font = char.c, font_name(char.font) if char.flags & is_code else None
                if font is None:  # mupdf's own character; a broken font's can lie outside Unicode
                    chars.append((chr(code) if 0 <= code <= 0x10FFFF else "\ufffd", None))
                    run = 0
                    continue
                table = tables.get(font)
                if table is None or code < 0x20 or code == 0x7F or code > 0xFF:
                    controls.add(font)
                    chars.append(("\ufffd", font))
                    run = 0
                    continue
                chars.append((table[code], font))
                if not table[code].isalpha():
                    run = 0
                elif font == last:
                    run += 1
                else:
                    run, last = 1, font
                if run >= 3:
                    spelling.add(font)
            if any(font is not None for _, font in chars):
                coded[key] = chars
    readers = spelling - controls
    if not readers:
        return lines
    fixed: list[_Line] = []
    for line in lines:
        found = coded.get(_box_key(line[0])) if "\ufffd" in line[1] else None
        if found is not None:
            raw = "".join([char if font is None or font in readers else "\ufffd" for char, font in found])
            mapped = "".join([char for char, font in found if font is None])
            if _normalize(mapped.strip())[0].translate(_UNREAD) == line[1].translate(_UNREAD):
                text, soft_break = _normalize(raw.strip())
                if text:
                    line = (line[0], text, line[2], soft_break, line[4], raw[:1].isspace(), raw[-1:].isspace())
        fixed.append(line)
    return fixed


#: what a line read with character codes may differ in from the line read without
_UNREAD: Final = {0x20: None, 0xFFFD: None}


def _code_tables(doc: Any, page: Any) -> dict[str, str]:
    """For each font of the page whose character codes are characters (see :func:`_coded`), by
    the name mupdf gives its glyphs, the 256 characters its codes stand for (U+FFFD where a code
    stands for none). A name that another font of the page bears too is left out."""
    tables: dict[str, str] = {}
    others: set[str] = set()
    for xref, _, kind, base_font, *_ in page.get_fonts(full=True):
        name = base_font[:_FONT_NAME_LENGTH]
        table = _font_table(doc, xref) if kind in ("Type1", "MMType1", "TrueType") else None
        if table is None or tables.get(name, table) != table or _PI_FONTS.match(name.partition("+")[2] or name):
            others.add(name)
            found_kind, found = doc.xref_get_key(xref, "Name")  # the name mupdf may give it instead
            if found_kind == "name":
                others.add(found[1:_FONT_NAME_LENGTH + 1])
        else:
            tables[name] = table
    return {name: table for name, table in tables.items() if name not in others}


#: how much of a font's name mupdf keeps (``char name[32]``)
_FONT_NAME_LENGTH: Final = 31
#: symbol fonts whose codes stand for arrows, bullets and boxes, never for the letters of their
#: code points ("l" is a bullet in Wingdings)
_PI_FONTS: Final = re.compile(r"(?:Wingdings|Webdings|Symbol|ZapfDingbats|Dingbats|MT-?Extra|Marlett)", re.IGNORECASE)


def _font_table(doc: Any, xref: int) -> str | None:
    """The characters a simple font's codes stand for, from its /Encoding; None if it renames
    codes (/Differences) or names an encoding of no standard characters."""
    kind, value = doc.xref_get_key(xref, "Encoding")
    if kind in ("xref", "dict"):
        if doc.xref_get_key(xref, "Encoding/Differences")[0] != "null":
            return None
        kind, value = doc.xref_get_key(xref, "Encoding/BaseEncoding")
    if kind == "null":
        return _CODE_TABLES["WinAnsiEncoding"]
    return _CODE_TABLES.get(value[1:]) if kind == "name" else None


def _decoded(codec: str) -> str:
    """The 256 characters of a one-byte code page, U+FFFD where it has none or a control code."""
    chars = [bytes([code]).decode(codec, "replace") for code in range(256)]
    return "".join("\ufffd" if unicodedata.category(char) == "Cc" else char for char in chars)


#: standard encodings of simple fonts: StandardEncoding agrees with ASCII but for its quotes and
#: is read there only
_CODE_TABLES: Final = {
    "WinAnsiEncoding": _decoded("cp1252"),
    # PDF's MacRomanEncoding predates the euro and Apple's logo: ¤ at 0xDB, nothing at 0xF0
    "MacRomanEncoding": _decoded("mac_roman").replace("\u20ac", "\u00a4").replace("\uf8ff", "\ufffd"),
    "StandardEncoding": _decoded("ascii").replace("'", "\u2019").replace("`", "\u2018"),
}
#: ASCII letters with their two bytes swapped ("M" U+004D as U+4D00), as a font whose ToUnicode
#: map was written the wrong way round reads; such characters make no more than a sliver of
#: real CJK text ("一" U+4E00 is the commonest). Not punctuation: swapped, "%" is "─" (U+2500),
#: and a line of those is a rule drawn in text.
_BYTE_SWAPPED: Final = re.compile("[" + "".join(chr(ord(c) << 8) for c in string.ascii_letters) + "]")


def _on_page(lines: list[_Line], area: Sequence[float]) -> list[_Line]:
    """Drop lines that lie wholly outside the page (hidden off-page text).

    A line that reaches over the page edge is kept whole, characters beyond the edge
    included: pymupdf's own clipping works per character, at a tenth of its time.
    """
    if not lines:
        return lines
    x0s, y0s, x1s, y1s = zip(*map(itemgetter(0), lines))
    left, top, right, bottom = area
    if min(x0s) >= left and min(y0s) >= top and max(x1s) <= right and max(y1s) <= bottom:
        return lines
    return [
        line
        for line in lines
        if line[0][2] > left and line[0][0] < right and line[0][3] > top and line[0][1] < bottom
    ]


def _xml_lines(textpage: Any, pymupdf: Any) -> list[_Line] | None:
    """Lines of a page from mupdf's stext XML (lines and bboxes only): the fast path.

    The page is parsed and normalized as a whole with C-level helpers (one regular
    expression, ``zip``, ``map``, ``compress``, substitutions over the joined lines),
    because per-line Python work is most of what this ingester adds to pymupdf's own
    cost. None if some ``<line>`` element does not parse (a future mupdf writing other
    attributes): the caller then reads the page through pymupdf's "dict" output.
    """
    mupdf = pymupdf.mupdf
    buffer = mupdf.fz_new_buffer(16384)
    out = mupdf.FzOutput(buffer)
    mupdf.fz_print_stext_page_as_xml_with_flags(out, textpage.this, 0, 0)
    out.fz_close_output()
    xml = mupdf.fz_buffer_extract_copy(buffer).decode("utf-8", "replace")
    found = _XML_ITEM.findall(xml)
    if not found:
        return [] if "<line " not in xml else None
    starts, bboxes, directions, raws = zip(*found)
    blocks: Iterable[int] = accumulate(map(len, starts))  # blocks started so far
    if starts.count("") < len(starts):  # drop the block markers, keep the lines
        is_line = list(map(not_, starts))
        blocks = compress(blocks, is_line)
        bboxes, directions, raws = (tuple(compress(c, is_line)) for c in (bboxes, directions, raws))
    if len(raws) != xml.count("<line "):
        return None
    if _LIGATURE_END_SPACE.search(xml):
        boxes_of = [tuple(map(float, box.split())) for box in bboxes]
        raws = tuple(_real_spaces(raws, boxes_of, [d == _UPRIGHT or _upright(d.split()) for d in directions], textpage))
    numbers = iter(map(float, " ".join(bboxes).split()))
    boxes = zip(numbers, numbers, numbers, numbers)
    texts, soft_breaks = _line_texts(raws)
    upright: Iterable[bool] = repeat(True)
    if directions.count(_UPRIGHT) != len(directions):
        upright = [d == _UPRIGHT or _upright(d.split()) for d in directions]
    spaced_starts, spaced_ends = [raw[:1].isspace() for raw in raws], [raw[-1:].isspace() for raw in raws]
    rows = zip(boxes, texts, blocks, soft_breaks, upright, spaced_starts, spaced_ends)
    return list(rows) if "" not in texts else [row for row in rows if row[1]]


def _line_texts(raws: Sequence[str]) -> tuple[list[str], Iterable[bool]]:
    """The normalized texts of XML-escaped lines, and whether each ended in a soft hyphen."""
    flat = "".join(raws)
    if flat.isascii() and flat.isprintable() and "&" not in flat:
        return list(map(str.strip, raws)), repeat(False)
    joined = "\n".join(raws)
    if "&" in joined:
        joined = _XML_ENTITY.sub(_xml_char, joined)  # never yields a newline
    soft_breaks: Iterable[bool] = repeat(False)
    if _SOFT_HYPHEN in joined:
        soft_breaks = [piece.rstrip().endswith(_SOFT_HYPHEN) for piece in joined.split("\n")]
    joined = _TRANSLATED.sub(_translated_char, joined)
    if not unicodedata.is_normalized("NFC", joined):
        joined = unicodedata.normalize("NFC", joined)
    texts = list(map(str.strip, joined.split("\n")))
    if len(texts) != len(raws):  # a raw newline inside a line: normalize line by line
        pairs = [_normalize(_XML_ENTITY.sub(_xml_char, raw).strip()) for raw in raws]
        return [text for text, _ in pairs], [soft for _, soft in pairs]
    return texts, soft_breaks


def _dict_lines(textpage: Any, pymupdf: Any) -> list[_Line]:
    """Lines of a page from pymupdf's "dict" output: slower, used where the XML does not parse.

    Its line boxes are mupdf's own, as in the XML: pymupdf's quad corrections (a box's height
    taken from its font's ascender and descender) are switched off while it is read, and back
    to what they were after (pymupdf4llm, when installed, switches them off for good on import).
    """
    tools = pymupdf.TOOLS
    corrections_off = tools.unset_quad_corrections()
    tools.unset_quad_corrections(True)
    try:
        blocks = textpage.extractDICT()["blocks"]
    finally:
        tools.unset_quad_corrections(corrections_off)
    found = [
        (block_number, raw_line)
        for block_number, block in enumerate(blocks)
        if block.get("type", 0) == 0
        for raw_line in block["lines"]
    ]
    raws: Sequence[str] = ["".join(span["text"] for span in raw_line["spans"]) for _, raw_line in found]
    if any(_LIGATURE_END_SPACE.search(raw) for raw in raws):
        raws = _real_spaces(raws, [tuple(raw_line["bbox"]) for _, raw_line in found],
                            [_upright(raw_line["dir"]) for _, raw_line in found], textpage)
    lines: list[_Line] = []
    for (block_number, raw_line), raw in zip(found, raws, strict=True):
        text, soft_break = _normalize(raw.strip())
        if text:
            x0, y0, x1, y1 = (float(v) for v in raw_line["bbox"])
            upright = _upright(raw_line["dir"])
            spaced_start, spaced_end = raw[:1].isspace(), raw[-1:].isspace()
            lines.append(((x0, y0, x1, y1), text, block_number, soft_break, upright, spaced_start, spaced_end))
    return lines


#: a word ending in what may be an expanded ligature ("ff", "fi", "fl", "ffi", "ffl"), a space,
#: and more text: the only places where a space drawn inside a ligature can show
_LIGATURE_END_SPACE: Final = re.compile(r"f[fil] (?=\S)")
#: such a space is drawn inside a ligature only if the next letter starts less than this
#: (in font sizes) after the ligature's end
_WORD_GAP: Final = 0.1


def _real_spaces(
    raws: Sequence[str], boxes: Sequence[tuple[float, ...]], upright: Sequence[bool], textpage: Any
) -> list[str]:
    """The lines without the spaces some producers draw inside a ligature ("Erﬁ nder").

    mupdf expands a ligature into its letters, the first with the glyph's width and the others
    with none. Such a space is a glyph of its own placed back over the ligature (it starts
    before the ligature ends), and the next letter starts where the ligature ends. A word that
    really ends in a ligature ("staﬀ arrived") has its space, drawn or made by mupdf from a
    gap, starting at the ligature's end. The characters of just the candidate lines (up to the
    last candidate) are read from mupdf's text page, the lines found by their bboxes; a line
    that cannot be found, or whose characters do not match its text, stays as it is. Upright
    lines only.
    """
    wanted: dict[tuple[float, ...], tuple[int, str, list[int]]] = {}
    for number, raw in enumerate(raws):
        if upright[number] and _LIGATURE_END_SPACE.search(raw):
            text = _XML_ENTITY.sub(_xml_char, raw) if "&" in raw else raw
            starts = [match.start() for match in _LIGATURE_END_SPACE.finditer(text)]
            wanted[_box_key(boxes[number])] = (number, text, starts)
    fixed = list(raws)
    for (number, text, starts), chars in _lines_chars(textpage, wanted):
        if "".join(chr(char.c) for char in chars) != text[: len(chars)]:
            continue
        keep = [_word_break(chars, start + 1) for start in starts]
        if all(keep) or len(keep) != len(_LIGATURE_END_SPACE.findall(raws[number])):
            continue
        verdicts = iter(keep)
        fixed[number] = _LIGATURE_END_SPACE.sub(
            lambda match: match.group(0) if next(verdicts) else match.group(0)[:-1], raws[number])
    return fixed


def _box_key(box: Sequence[float]) -> tuple[float, ...]:
    return tuple(round(float(value), 1) for value in box)


_Wanted = tuple[int, str, list[int]]


def _lines_chars(textpage: Any, wanted: Mapping[tuple[float, ...], _Wanted]) -> Iterator[tuple[_Wanted, list[Any]]]:
    """Each wanted text line with mupdf's characters, up to its last candidate's next letter,
    in one walk of mupdf's text page; nothing where pymupdf does not expose it (before 1.24)."""
    blocks = getattr(textpage, "this", None)
    if not wanted or blocks is None or not hasattr(blocks, "begin"):
        return
    left = len(wanted)
    for block in blocks:
        inner = block.m_internal
        if inner.type != 0:
            continue
        area = inner.bbox
        x0, y0, x1, y1 = area.x0 - 0.1, area.y0 - 0.1, area.x1 + 0.1, area.y1 + 0.1
        if not any(x0 <= a <= c <= x1 and y0 <= b <= d <= y1 for a, b, c, d in wanted):
            continue  # walking a block's lines costs more than looking at its bbox
        for line in block:
            box = line.m_internal.bbox
            entry = wanted.get(_box_key((box.x0, box.y0, box.x1, box.y1)))
            if entry is None:
                continue
            last = entry[2][-1] + 2  # the space after the last candidate
            chars: list[Any] = []
            for char in line:
                inner_char = char.m_internal
                chars.append(inner_char)
                if len(chars) > last + 1 and inner_char.c != 0x20:
                    break  # the letter after that space: enough
            yield entry, chars
            left -= 1
            if not left:
                return


def _word_break(chars: Sequence[Any], tail: int) -> bool:
    """Whether the space after ``chars[tail]`` (what may be a ligature's last letter) is a word
    break; mupdf's characters, their positions read only here."""
    tail_quad, space_quad = chars[tail].quad, chars[tail + 1].quad
    end = tail_quad.ur.x
    if tail_quad.ul.x < end - 0.01 or space_quad.ul.x >= end - 0.25 * (space_quad.ur.x - space_quad.ul.x):
        return True  # the letter has a width of its own, or the space does not reach back over it
    following = next((char for char in chars[tail + 2 :] if char.c != 0x20), None)
    return following is None or following.quad.ul.x - end >= _WORD_GAP * chars[tail].size


def _upright(direction: Sequence[str | float]) -> bool:
    """True if a line's direction vector (dx, dy) runs left to right, give or take 6°."""
    dx, dy = (float(v) for v in direction)
    return dx > 0 and abs(dy) <= _SKEW


def _normalize(text: str) -> tuple[str, bool]:
    """Normalize a stripped line; also say whether it ended in a soft hyphen."""
    if text.isascii():
        return text.translate(_TRANSLATION).strip(), False
    soft_break = text.endswith(_SOFT_HYPHEN)
    text = text.translate(_TRANSLATION)
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text.strip(), soft_break


def _translated_char(match: re.Match[str]) -> str:
    return _BLOCK_TRANSLATION[ord(match.group(0))] or ""


def _xml_char(match: re.Match[str]) -> str:
    hex_code, dec_code, name = match.groups()
    if name is not None:
        return _XML_NAMED.get(name, match.group(0))
    code = int(hex_code, 16) if hex_code is not None else int(dec_code)
    if code in _CONTROL_CODES:
        return _CONTROL_CODES[code]
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        return "\ufffd"
    return chr(code)


# --- layout ------------------------------------------------------------------------


def _assemble(
    pages: Sequence[Sequence[_Line]],
) -> tuple[str, tuple[PassageDraft, ...], tuple[int, ...]]:
    """Join the pages' lines into the text and its passages (see the module docstring)."""
    parts: list[str] = []
    passages: list[tuple[int, int, int, BBox, int]] = []
    without_text: list[int] = []
    add_part, add_passage = parts.append, passages.append
    line_sep, paragraph_sep, hyphens, rise = _LINE_SEP, _PARAGRAPH_SEP, _HYPHENS, _RISE
    position = 0
    paragraph = -1
    for page_number, lines in enumerate(pages, start=1):
        if not lines:
            without_text.append(page_number)
            continue
        ordered, joins = _page_order(lines)
        separator = _PAGE_SEP if position else ""
        continued = False  # does this line continue the previous line's paragraph?
        for index, ((bbox, text, block, soft_break, upright, _, spaced), following) in enumerate(
                zip(ordered, islice(ordered, 1, None))):
            if not continued:
                paragraph += 1
            # a piece the row goes on from ("ה-" / "iPhone" on a right-to-left page) is no line break
            broken = (soft_break or text[-1] in hyphens) and _hyphenated(text, soft_break, following[1]) and not (
                joins is not None and index in joins)
            continued = (following[2] == block and following[0][1] >= bbox[1] - rise) or (
                broken and _next_line(bbox, following[0]))
            start = position + len(separator)
            add_part(separator)
            if not broken and upright and following[4] and (
                    gap := _gap_beside(bbox, following[0]) if joins is None else joins.get(index)) is not None:
                # mupdf cut one line into pieces ("For " / "shipboard service" / "s please"),
                # often in blocks of their own: the row reads on, a space where one was drawn
                # or a gap shows, none where the pieces touch (a word cut in two) unless a
                # capital starts the next one ("Testerino" / "Date:"); on a page with right-to-left
                # text the pieces come in the order of their text's direction (see _bidi_order),
                # and a Latin word may start right after a right-to-left piece ("ב-" / "Google")
                touching = gap < _TOUCHING * (bbox[3] - bbox[1]) and not (
                    spaced or following[5] or (following[1][:1].isupper() and (joins is None or not _strong(text)[0])))
                continued, separator = True, "" if touching else " "
            elif not continued and len(text) == 1 and _drop_capital(bbox, text, following, ordered[index + 2 : index + 3]):
                continued, separator = True, ""  # "T" + "he archive ...": one word again
            elif not continued:
                separator = paragraph_sep
            elif broken:
                separator = ""
                if not soft_break:
                    text = text[:-1]  # the hyphen; a soft hyphen is already gone
            else:
                separator = line_sep
            position = start + len(text)
            add_passage((start, position, page_number, bbox, paragraph))
            add_part(text)
    # tuple.__new__ makes the named tuples in C (PassageDraft's own __new__ is Python code).
    drafts = tuple(map(tuple.__new__, repeat(PassageDraft), passages))
    return "".join(parts), drafts, tuple(without_text)


def _page_order(lines: Sequence[_Line]) -> tuple[list[_Line], dict[int, float] | None]:
    """A page's lines in reading order, then an end-of-page sentinel (block -1); and None, or on
    a page with right-to-left text, where each line goes on along its row: the index of each
    such line in that order, with the gap to the next piece (see :func:`_bidi_order`).

    Upright lines are ordered by :func:`_reading_order`; rotated ones (margin stamps,
    axis labels) follow in content order.
    """
    all_upright = all(map(itemgetter(4), lines))
    upright = lines if all_upright else [line for line in lines if line[4]]
    text = "".join([line[1] for line in lines])
    joins = None
    if not text.isascii() and _RTL_CHARS.search(text) and (strong := _strong(text))[0]:
        ordered, joins = _bidi_order(upright, *strong)
    elif not text.isascii() and _vertical(upright):
        ordered = [upright[i] for i in _reading_order([_transposed(line[0]) for line in upright])]
    else:
        ordered = [upright[i] for i in _reading_order(list(map(itemgetter(0), upright)))]
    if not all_upright:
        ordered.extend(line for line in lines if not line[4])
    ordered.append(_END_OF_PAGE)
    return ordered, joins


#: where Unicode gives characters the bidirectional class R or AL (right to left) by default
#: (DerivedBidiClass.txt; not U+FEFF, a byte order mark, nor U+200F, the invisible right-to-left
#: mark): a page with no character in these ranges, or none there of class R or AL, is read as
#: it always was
_RTL_CHARS: Final = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")
_RTL_CLASSES: Final = frozenset({"R", "AL"})


def _strong(text: str) -> tuple[int, int]:
    """How many of ``text``'s characters are strongly right to left (bidirectional class R or
    AL), and how many strongly left to right (L)."""
    rtl = ltr = 0
    bidi_class = unicodedata.bidirectional
    for char, count in Counter(text).items():
        kind = bidi_class(char)
        if kind == "L":
            ltr += count
        elif kind in _RTL_CLASSES:
            rtl += count
    return rtl, ltr


def _vertical(upright: Sequence[_Line]) -> bool:
    """Whether a page is written in vertical columns (Japanese, Chinese) that mupdf gives as one
    line per character: most lines are one wide character set right under the line before, as
    close as type is set (a grid of one-character cells, a timetable drawn column by column,
    leaves more room between its rows)."""
    if 2 * list(map(len, map(itemgetter(1), upright))).count(1) < len(upright):
        return False  # most pages: a glance, no loop over their lines
    stacked = 0
    for (box, text, *_), (below, following, *_) in zip(upright, islice(upright, 1, None)):
        height, width = box[3] - box[1], box[2] - box[0]
        if (len(text) == len(following) == 1 and abs(below[0] - box[0]) < 0.25 * width
                and -0.5 * height < below[1] - box[3] and below[1] - box[1] <= _STACKED_PITCH * width
                and east_asian_width(text) in _WIDE and east_asian_width(following) in _WIDE):
            stacked += 1
    return stacked >= _VERTICAL_LINES and 2 * stacked >= len(upright)


#: East Asian widths of the characters set upright in vertical writing (kana, kanji, hanzi, hangul)
_WIDE: Final = frozenset({"W", "F"})
#: a page is written vertically when at least this many characters stand right under another
_VERTICAL_LINES: Final = 8
#: at most this many character widths (ems: wide characters are square) from a character's top
#: to the next one's: type set vertically advances one em, a table's rows of one-character cells
#: more (a timetable in 10 pt type 14 pt apart: 1.4)
_STACKED_PITCH: Final = 1.25


def _transposed(box: BBox) -> BBox:
    """``box`` turned so that vertical columns read from right to left become rows read from
    top to bottom, each from left to right: (x, y) -> (y, -x)."""
    return (box[1], -box[2], box[3], -box[0])


def _mirrored(box: BBox) -> BBox:
    """``box`` reflected left to right (x -> -x): right-to-left reading as left-to-right layout."""
    return (-box[2], box[1], -box[0], box[3])


def _bidi_order(upright: Sequence[_Line], rtl: int, ltr: int) -> tuple[list[_Line], dict[int, float]]:
    """:func:`_page_order` of the upright lines of a page holding right-to-left text (Hebrew,
    Arabic): when most of its strong characters (Unicode bidirectional classes) run right to
    left, the page is read in mirror image (columns from right to left); then the lines of each
    row that come one after the other (pieces of a line, which mupdf cuts where a run of another
    direction starts: a number, a Latin word; labels and table cells read row by row) are put in
    the order of their text (see :func:`_row_logical`). Also gives, for each line that goes on along its row
    (the next one stands beside it, as :func:`_gap_beside` has it), its index and the gap.
    ``rtl`` and ``ltr`` count the page's strong characters of either direction."""
    mirror = rtl > ltr
    boxes = [_mirrored(line[0]) if mirror else line[0] for line in upright]
    ordered = [upright[i] for i in _reading_order(boxes)]
    joins: dict[int, float] = {}
    start = 0
    while start < len(ordered):
        end = start + 1
        while end < len(ordered) and _same_row(ordered[end - 1][0], ordered[end][0]) and _apart(
                ordered[end - 1][0], ordered[end][0]):
            end += 1
        if end - start > 1:
            row = ordered[start:end]
            if mirror or _strong("".join([line[1] for line in row]))[0]:
                row, gaps = _row_logical(sorted(row, key=lambda line: line[0][0]))
                ordered[start:end] = row
            else:  # a row of left-to-right text on a left-to-right page: as it always was
                gaps = [following[0][0] - line[0][2] for line, following in zip(row, islice(row, 1, None))]
            for index, line, gap in zip(range(start, end), row, gaps):
                height = line[0][3] - line[0][1]
                if -_TOUCHING * height < gap < _BESIDE * height:
                    joins[index] = gap
        start = end
    return ordered, joins


def _row_logical(visual: Sequence[_Line]) -> tuple[list[_Line], list[float]]:
    """The pieces of one row, given from left to right, in the order of their text, and the gap
    between each one and the next, as the Unicode bidirectional algorithm orders runs: a row
    whose strong characters are mostly right to left reads from right to left, a run of pieces
    of left-to-right text within it from left to right; a row of mostly left-to-right text
    reads from left to right, a run of pieces of right-to-left text within it from right to
    left. A piece is right to left when most of its strong characters are; a piece without any
    (a number, a dash) goes with the pieces on both sides of it when they agree, else with the
    row. mupdf gives each piece's characters in logical order already."""
    kinds: list[bool | None] = []  # right to left? None: no strong character
    rtl = ltr = 0
    for line in visual:
        r, l = _strong(line[1])
        rtl, ltr = rtl + r, ltr + l
        kinds.append(None if r == l == 0 else r > l)
    row_rtl = rtl > ltr
    resolved: list[bool] = []
    for index, kind in enumerate(kinds):
        if kind is None:
            before = next((k for k in reversed(kinds[:index]) if k is not None), None)
            after = next((k for k in islice(kinds, index + 1, None) if k is not None), None)
            kind = before if before is not None and before == after else row_rtl
        resolved.append(kind)
    units: list[list[int]] = []  # left to right; pieces against the row's direction run together
    for index, kind in enumerate(resolved):
        if kind != row_rtl and units and resolved[units[-1][-1]] != row_rtl:
            units[-1].append(index)
        else:
            units.append([index])
    if row_rtl:
        units.reverse()
    else:
        units = [unit[::-1] for unit in units]
    x0 = [line[0][0] for line in visual]
    x1 = [line[0][2] for line in visual]
    gaps: list[float] = []
    for unit, following in zip(units, [*units[1:], None]):
        # pieces of a unit stand side by side; so do consecutive units
        gaps.extend(max(x0[b] - x1[a], x0[a] - x1[b]) for a, b in zip(unit, islice(unit, 1, None)))
        if following is not None:
            gaps.append(max(min(x0[i] for i in following) - max(x1[i] for i in unit),
                            min(x0[i] for i in unit) - max(x1[i] for i in following)))
    return [visual[i] for unit in units for i in unit], gaps


#: capitals that are words of their own as often as not in the languages most written in
#: these scripts ("I was", "A long", "O Brasil", "Y entonces", "E poi", "Я родился", "В
#: городе", "Ο Νίκος"): as drop capitals they are left apart rather than glued to the next word
_WORD_LETTERS: Final = frozenset("AEIOUYАВИКОСУЯΗΟ")


def _drop_capital(bbox: BBox, text: str, following: _Line, after: Sequence[_Line]) -> bool:
    """True if ``text`` is a drop capital: one capital letter beside the first two lines of
    the text it begins, at least as tall as both, whose word goes on in lower case in the
    first of them, which starts within an em of it."""
    (x0, y0, _, y1), rest = following[0], following[1]
    height = y1 - y0
    if not (text.isupper() and text not in _WORD_LETTERS and rest[:1].islower() and height > 0):
        return False
    beside = bbox[3] - bbox[1] >= 1.8 * height and bbox[2] - 1.0 <= x0 <= bbox[2] + height
    if not beside or abs(y0 - bbox[1]) > height:  # the first line starts at the capital's top
        return False
    # the second line of that text is beside the capital too
    return bool(after) and after[0][2] == following[2] and after[0][0][1] < bbox[3] and abs(after[0][0][0] - x0) <= 1.0


def _gap_beside(bbox: BBox, following: BBox) -> float | None:
    """The gap from a line to the next one in reading order when that one goes on along the
    same row (starting less than :data:`_BESIDE` line heights on, each one's middle inside the
    other's box); None otherwise."""
    height = bbox[3] - bbox[1]
    gap = following[0] - bbox[2]
    if not -_TOUCHING * height < gap < _BESIDE * height:
        return None
    middle, following_middle = (bbox[1] + bbox[3]) / 2, (following[1] + following[3]) / 2
    if not (bbox[1] < following_middle < bbox[3] and following[1] < middle < following[3]):
        return None
    return gap


def _same_row(bbox: BBox, following: BBox) -> bool:
    """Whether two lines share a row: each one's middle lies inside the other's box."""
    middle, following_middle = (bbox[1] + bbox[3]) / 2, (following[1] + following[3]) / 2
    return bbox[1] < following_middle < bbox[3] and following[1] < middle < following[3]


def _apart(bbox: BBox, following: BBox) -> bool:
    """Whether two lines stand side by side, overlapping across by less than :data:`_TOUCHING`
    line heights (lines of one column in tall boxes share a row by their middles, but overlap)."""
    overlap = _TOUCHING * (bbox[3] - bbox[1])
    return following[0] > bbox[2] - overlap or bbox[0] > following[2] - overlap


def _next_line(bbox: BBox, following: BBox) -> bool:
    """Whether ``following`` is the line right under ``bbox`` in the same column: below it,
    less than a line height further down, and overlapping it across. mupdf starts a new block
    where the indentation changes (a hanging indent, a description list), so a word broken
    over such lines is still joined."""
    height = bbox[3] - bbox[1]
    return (
        following[1] >= bbox[1] + 0.5 * height
        and following[1] - bbox[3] <= height
        and following[0] < bbox[2] and following[2] > bbox[0]
    )


def _hyphenated(text: str, soft_break: bool, following: str) -> bool:
    """True if a word is split by a hyphen between line ``text`` and ``following``."""
    if not following[:1].islower():
        return False
    if soft_break:  # the soft hyphen is already removed
        return text[-1].isalpha()
    if following.split(maxsplit=1)[0] in _CONJUNCTIONS:
        return False  # a suspended hyphen: "Film-" / "und Fernsehfonds", "pre-" / "and post-war"
    return len(text) >= 2 and text[-1] in _HYPHENS and text[-2].isalpha()


# Words after which a line-end hyphen is a suspended one ("Film- und Fernsehfonds"), never the
# rest of a broken word (no hyphenation leaves them as a word's tail, unlike "to" in "pho-to").
_CONJUNCTIONS = frozenset({"und", "oder", "bzw.", "sowie", "and", "nor"})


def _reading_order(boxes: Sequence[BBox]) -> list[int]:
    """Indexes of ``boxes`` in reading order (see the module docstring)."""
    if not boxes or _single_column(boxes):
        return list(range(len(boxes)))
    return _XYCut(boxes).order()


def _single_column(boxes: Sequence[BBox]) -> bool:
    """True if the lines already come top-down in one column: the XY-cut would keep them.

    Each line starts lower than the one before, and all x-ranges share a point (up to a
    column gap), so there are neither columns nor side-by-side lines to reorder.
    """
    tops = list(map(itemgetter(1), boxes))
    if not all(map(lt, tops, islice(tops, 1, None))):
        return False
    left: float = max(map(itemgetter(0), boxes))
    right: float = min(map(itemgetter(2), boxes))
    return left - right <= _COLUMN_GAP


_Interval = tuple[float, float]


class _XYCut:
    """A recursive XY-cut over line bboxes, run with an explicit stack.

    Coordinates are kept as four sequences indexed by line, so that sorting and
    projections run through C-level ``__getitem__`` keys.
    """

    __slots__ = ("x0", "x1", "y0", "y1")

    def __init__(self, boxes: Sequence[BBox]) -> None:
        self.x0, self.y0, self.x1, self.y1 = zip(*boxes)

    def order(self) -> list[int]:
        left, right = self.x0.__getitem__, self.x1.__getitem__
        order: list[int] = []
        stack: list[list[int]] = [list(range(len(self.x0)))]
        while stack:
            group = stack.pop()
            if len(group) == 1:
                order.append(group[0])
                continue
            if max(map(left, group)) - min(map(right, group)) <= _COLUMN_GAP:
                # all x-ranges share a point: no column split anywhere below, so the
                # XY-cut comes down to reading top to bottom
                order.extend(self._top_down(group))
                continue
            parts = self._split(group)
            if parts is None:
                order.extend(self._top_down(group))
            else:
                stack.extend(reversed(parts))
        return order

    def _top_down(self, group: list[int]) -> list[int]:
        """By top edge, then by left edge; lines whose tops differ by less than a quarter of the
        lower line's height are one row, read left to right (a bullet or label set in another
        font, its box a fraction of a point lower, stays before its line)."""
        x0, y0, y1 = self.x0, self.y0, self.y1
        ordered = sorted(sorted(group, key=x0.__getitem__), key=y0.__getitem__)
        out: list[int] = []
        row: list[int] = []
        for i in ordered:
            if row and y0[i] - y0[row[0]] < 0.25 * min(y1[row[0]] - y0[row[0]], y1[i] - y0[i]):
                row.append(i)
                continue
            out.extend(sorted(row, key=x0.__getitem__))
            row = [i]
        out.extend(sorted(row, key=x0.__getitem__))
        return out

    def _rows(self, group: list[int]) -> list[list[int]]:
        """The lines in rows, top down: a line whose middle lies below the bottom of some line
        of the current row starts the next row. (Line boxes are taller than the leading of
        most text, so lines of one column touch; their middles do not. A tall box, set in a
        font with a large ascent, does not pull the next row into its own.)"""
        y0, y1 = self.y0, self.y1
        ordered = sorted(group, key=lambda i: (y0[i] + y1[i], self.x0[i]))
        rows: list[list[int]] = []
        bottom = float("-inf")
        for i in ordered:
            if (y0[i] + y1[i]) / 2 > bottom:
                rows.append([i])
                bottom = y1[i]
            else:
                rows[-1].append(i)
                bottom = min(bottom, y1[i])
        return rows

    def _split(self, group: list[int]) -> list[list[int]] | None:
        """Split a region into columns, else into bands; None if it cannot be split. A
        region of labels and the lines they label comes back as its lines, row by row."""
        bands = _runs(group, self.y0, self.y1, 0.0)
        columns = _runs(group, self.x0, self.x1, _COLUMN_GAP)
        if len(columns) > 1:
            columns = self._labels_joined(columns)
            if len(columns) == 1:  # labels and the lines they label: row by row, left to right
                x0 = self.x0.__getitem__
                return [[i] for row in self._rows(group) for i in sorted(row, key=x0)]
        if len(bands) == 1 and self._row_rest(columns):  # "breaths.  Then she" / "and smiles."
            x0 = self.x0.__getitem__
            return [[i] for row in self._rows(group) for i in sorted(row, key=x0)]
        if len(columns) > 1 and (len(bands) == 1 or self._columnar(columns)):
            return self._apart(bands, columns) or columns
        if len(bands) == 1:
            return self._edge_apart(group)
        if len(bands) == len(group):  # one line per band
            return bands
        return self._merge_columnar(bands)

    def _edge_apart(self, group: list[int]) -> list[list[int]] | None:
        """The region with its last line (or two), else its first, set apart as a band of their
        own, when they are what keeps its columns from being cut: without them the region has
        real columns (see :meth:`_columnar`) and one of them reaches across a gutter; a gap
        clears them from every line over or under them, and no line beside them is level with
        them, only reaches into their boxes (a running foot whose box reaches up into a
        "Continued" set large at the foot of the right column). None if there are no such lines.
        """
        if len(group) < 5:  # two columns of two lines each, and the edge line
            return None
        x0, y0, y1 = self.x0, self.y0, self.y1
        last = sorted(group, key=lambda i: (-y1[i], x0[i]))[:_EDGE_LINES]
        first = sorted(group, key=lambda i: (y0[i], x0[i]))[:_EDGE_LINES]
        for edge, below in ((last, True), (first, False)):
            for count in range(1, len(edge) + 1):
                apart = edge[:count]
                rest = [i for i in group if i not in apart]
                if not all(self._clear(j, i, below) for j in apart for i in rest):
                    break  # an edge line touches a line over or under it, or is level with one
                columns = self._columns(rest)
                if self._columnar(columns) and any(self._across(j, columns) for j in apart):
                    return [rest, apart] if below else [apart, rest]
        return None

    def _across(self, line: int, columns: list[list[int]]) -> bool:
        """Whether ``line`` reaches over at least two of ``columns`` (across a gutter)."""
        x0, x1 = self.x0, self.x1
        reached = sum(x0[line] < max(map(x1.__getitem__, column)) and min(map(x0.__getitem__, column)) < x1[line]
                      for column in columns)
        return bool(reached >= 2)

    def _clear(self, edge: int, line: int, below: bool) -> bool:
        """Whether ``edge``, set apart below (else above) ``line``, is clear of it: ``line`` ends
        before ``edge`` starts when one is over the other, and has its middle before that
        otherwise (beside ``edge``, it may reach into its box, not share its row)."""
        x0, y0, x1, y1 = self.x0, self.y0, self.x1, self.y1
        over = x0[line] < x1[edge] and x0[edge] < x1[line]
        if below:
            return bool((y1[line] if over else (y0[line] + y1[line]) / 2) <= y0[edge])
        return bool((y0[line] if over else (y0[line] + y1[line]) / 2) >= y1[edge])

    def _row_rest(self, columns: list[list[int]]) -> bool:
        """Whether a "column" is one line on the first row of the column to its left, as tall as
        that row's lines: the rest of that row, which mupdf cut at a wide gap (two spaces after a
        full stop in a typewriter font), not a column of its own."""
        if len(columns) != 2 or len(columns[1]) != 1 or len(columns[0]) < 2:
            return False
        (j,) = columns[1]
        y0, y1 = self.y0, self.y1
        first = self._rows(columns[0])[0]
        middle = (y0[j] + y1[j]) / 2
        return any(y0[i] <= middle <= y1[i] for i in first) and all(
            y1[i] - y0[i] < 1.5 * (y1[j] - y0[j]) for i in first)

    def _apart(self, bands: list[list[int]], columns: list[list[int]]) -> list[list[int]] | None:
        """The region cut in two at its widest band gap, if that gap is wider than every gutter
        between ``columns`` and neither side holds columns of its own; else None.

        Lines far apart leave gutters without being columns: a title page with the title at
        the left, the subtitle at the right and the author at the foot reads top to bottom.
        """
        if len(bands) == 1:
            return None
        y0, y1, x0, x1 = self.y0.__getitem__, self.y1.__getitem__, self.x0.__getitem__, self.x1.__getitem__
        tops, bottoms = [min(map(y0, band)) for band in bands], [max(map(y1, band)) for band in bands]
        gaps = [top - bottom for top, bottom in zip(islice(tops, 1, None), bottoms)]  # bands come top down
        widest = max(gaps)
        lefts, rights = [min(map(x0, column)) for column in columns], [max(map(x1, column)) for column in columns]
        if widest <= max(left - right for left, right in zip(islice(lefts, 1, None), rights)):
            return None
        cut = gaps.index(widest) + 1
        parts = [[i for band in bands[:cut] for i in band], [i for band in bands[cut:] for i in band]]
        if any(self._columnar(self._columns(part)) for part in parts):
            return None
        return parts

    def _merge_columnar(self, bands: list[list[int]]) -> list[list[int]]:
        """Merge consecutive bands that share a column gutter into one region.

        Two bands merge when their union still has a gap and either both have one,
        or the single-column one fits inside a column of the other (a column that
        runs on alone for a while). A merged region that is not truly columnar (see
        :meth:`_columnar`) is given back as its bands.
        """
        coverage = self._coverage
        regions: list[list[list[int]]] = [[bands[0]]]
        cover = coverage(bands[0])
        for band in islice(bands, 1, None):
            band_cover = coverage(band)
            if len(cover) > 1:
                compatible = len(band_cover) > 1 or _inside(band_cover[0], cover)
            else:
                compatible = len(band_cover) > 1 and _inside(cover[0], band_cover)
            if compatible:
                union = _merge_intervals(cover + band_cover)
                if len(union) > 1:
                    regions[-1].append(band)
                    cover = union
                    continue
            regions.append([band])
            cover = band_cover
        result: list[list[int]] = []
        for region in regions:
            if len(region) == 1:
                result.append(region[0])
                continue
            merged = [i for band in region for i in band]
            if self._columnar(self._columns(merged)):
                result.append(merged)
            else:
                result.extend(region)
        return result

    def _columns(self, group: list[int]) -> list[list[int]]:
        """The group's columns, a column of labels joined to the lines it labels."""
        return self._labels_joined(_runs(group, self.x0, self.x1, _COLUMN_GAP))

    def _columnar(self, columns: list[list[int]]) -> bool:
        """True if a split into columns is real: at least two columns of two rows or more.

        A run-in heading ("Keywords  JavaScript, tracing") followed by a short line looks
        like two columns in its x-projection, but one of them is a single line; a section
        number joined to its title is one row. A drop capital beside two columns still
        leaves two real ones.
        """
        return sum(len(column) >= 2 and len(self._rows(column)) >= 2 for column in columns) >= 2

    def _labels_joined(self, columns: list[list[int]]) -> list[list[int]]:
        """The columns, each column of labels joined to the one it labels: the next one to the
        right (a number before its line), else the one to the left (a page number after its
        title). A column that would label both goes with the left one when it sits on that
        one's rows clearly more exactly (the page numbers of the left column of a two-column
        table of contents share its baselines; the right column's rows are merely close)."""
        index = 0
        while index < len(columns) and len(columns) > 1:
            fits = [n for n in (index + 1, index - 1)
                    if 0 <= n < len(columns) and self._labels_rows_of(columns[index], columns[n])]
            if not fits and index + 1 < len(columns) and self._marks_of(columns[index], columns[index + 1]):
                fits = [index + 1]
            if len(fits) == 2 and (self._misalignment(columns[index], columns[index - 1]) + 0.5
                                   < self._misalignment(columns[index], columns[index + 1])):
                fits = [index - 1]
            if fits:
                labels = columns.pop(index)
                columns[min(fits[0], index)] += labels  # the neighbour's place once labels are out
                index = 0  # the joined column may now label another
            else:
                index += 1
        return columns

    def _misalignment(self, column: list[int], beside: list[int]) -> float:
        """How far, on average, the middles of ``column``'s lines are from the nearest middle of
        a line of ``beside``."""
        return sum(self._off_middles(column, beside)) / len(column)

    def _off_middles(self, column: list[int], beside: list[int]) -> Iterator[float]:
        """For each line of ``column``, how far its middle is from the nearest middle of a line
        of ``beside``."""
        y0, y1 = self.y0, self.y1
        middles = sorted((y0[j] + y1[j]) / 2 for j in beside)
        for i in column:
            middle = (y0[i] + y1[i]) / 2
            k = bisect_right(middles, middle)
            yield min(abs(middle - middles[n]) for n in (k - 1, k) if 0 <= n < len(middles))

    def _labels_rows_of(self, column: list[int], beside: list[int]) -> bool:
        """Whether ``column`` labels the rows of ``beside``: its lines are all narrow, most of
        them sit on rows of ``beside``, and they are enough to label most of the rows of
        ``beside`` between its first and its last line (a few words spread down the side of
        a paragraph label nothing)."""
        x0, y0, x1, y1 = self.x0, self.y0, self.x1, self.y1
        if any(x1[i] - x0[i] > _LABEL_WIDTH * (y1[i] - y0[i]) for i in column):
            return False
        first, last = min(map(y0.__getitem__, column)), max(map(y1.__getitem__, column))
        alongside = [j for j in beside if first <= (y0[j] + y1[j]) / 2 <= last]
        if len(column) < _LABELS_ON_ROWS * len(self._rows(alongside)):
            return False
        rows = sorted((y0[j], y1[j]) for j in beside)
        tops = [top for top, _ in rows]
        reach = list(accumulate((bottom for _, bottom in rows), max))  # lowest bottom so far
        on_rows = 0
        for i in column:
            middle = (y0[i] + y1[i]) / 2
            above = bisect_right(tops, middle)  # the rows of ``beside`` starting above the middle
            on_rows += above > 0 and reach[above - 1] >= middle  # one of them spans it
        return on_rows >= _LABELS_ON_ROWS * len(column)

    def _marks_of(self, column: list[int], beside: list[int]) -> bool:
        """Whether ``column`` marks the items of a list in ``beside``, the column to its right:
        its lines are all marks (bullets, "1.", "(iv)": at most _MARK_WIDTH line heights wide,
        no taller than its lines), each level with a line of ``beside`` (their middles less than a
        quarter of its height apart), less than _MARK_GAP line heights before it, and another
        line of the page starts at or left of them and runs past the gap (so they are inside
        the text: margin notes and an edition's line numbers stand left of all of it)."""
        x0, y0, x1, y1 = self.x0, self.y0, self.x1, self.y1
        height = max(y1[i] - y0[i] for i in column)
        if height > 1.5 * sorted(y1[j] - y0[j] for j in beside)[len(beside) // 2]:
            return False  # a drop capital, as tall as several lines
        if any(x1[i] - x0[i] > _MARK_WIDTH * (y1[i] - y0[i]) for i in column):
            return False
        left, start = min(map(x0.__getitem__, column)), min(map(x0.__getitem__, beside))
        if start - max(map(x1.__getitem__, column)) > _MARK_GAP * height:
            return False
        # each on the middle of a line: not a line number in a smaller font
        if any(off > 0.25 * (y1[i] - y0[i]) for i, off in zip(column, self._off_middles(column, beside))):
            return False
        marks = set(column)
        return any(x0[k] <= left + 1.0 and x1[k] > start for k in range(len(x0)) if k not in marks)

    def _coverage(self, band: list[int]) -> list[_Interval]:
        """The x-intervals a band covers, merged across gaps narrower than a column gap."""
        x0, x1 = self.x0, self.x1
        if len(band) == 1:
            return [(x0[band[0]], x1[band[0]])]
        if len(band) == 2:
            i, j = band if x0[band[0]] <= x0[band[1]] else band[::-1]
            if x0[j] - x1[i] > _COLUMN_GAP:
                return [(x0[i], x1[i]), (x0[j], x1[j])]
            return [(x0[i], max(x1[i], x1[j]))]
        return _merge_intervals(list(zip(map(x0.__getitem__, band), map(x1.__getitem__, band))))


def _runs(group: list[int], starts: Sequence[float], ends: Sequence[float], gap: float) -> list[list[int]]:
    """Group indexes into runs along one axis, split where a gap wider than ``gap`` opens."""
    ordered = sorted(group, key=starts.__getitem__)
    current = [ordered[0]]
    runs = [current]
    end = ends[ordered[0]]
    for i in islice(ordered, 1, None):
        if starts[i] - end > gap:
            current = [i]
            runs.append(current)
        else:
            current.append(i)
        end = max(end, ends[i])
    return runs


def _merge_intervals(intervals: list[_Interval]) -> list[_Interval]:
    if len(intervals) == 1:
        return intervals
    intervals.sort()
    merged = [intervals[0]]
    for start, end in islice(intervals, 1, None):
        last_start, last_end = merged[-1]
        if start - last_end > _COLUMN_GAP:
            merged.append((start, end))
        elif end > last_end:
            merged[-1] = (last_start, end)
    return merged


def _inside(interval: _Interval, cover: list[_Interval]) -> bool:
    start, end = interval
    return any(lo - _COLUMN_GAP <= start and end <= hi + _COLUMN_GAP for lo, hi in cover)
