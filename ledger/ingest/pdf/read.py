"""Read a PDF into a draft: open it, take each page's lines, put them in reading order and
join them into the text and its passages (see :mod:`ledger.ingest.pdf`).
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any, Final

from ledger.errors import IngestError
from ledger.ingest.base import BBox, SourceDraft, check_size, content_hash
from ledger.ingest.pdf.assemble import assemble
from ledger.ingest.pdf.ocr import coded, has_unmapped, readable
from ledger.ingest.pdf.open import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_PAGES,
    believable,
    capitalized,
    check_bytes,
    document_label,
    document_metadata,
    load_pymupdf,
    lost_content,
    mupdf_errors,
    open_document,
    parse_pdf_date,
    shortened,
)
from ledger.ingest.pdf.text import Line, on_page, page_lines

__all__ = ["read_pdf", "read_pdf_file"]

_Matrix = tuple[float, float, float, float, float, float]


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
    label = document_label(uri)
    if not isinstance(data, bytes | bytearray | memoryview):
        raise IngestError(f"read_pdf takes the document's bytes, not {type(data).__name__}")
    data = bytes(data)
    check_bytes(data, label, max_bytes)
    pymupdf = load_pymupdf()
    with _MUPDF:
        page_count, pages, turned, partly, metadata = _read_document(data, label, password, max_pages, pymupdf)
    text, passages, without_text = assemble(pages)
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
        published_at=believable(parse_pdf_date(metadata.get("creationDate"))),
        modified_at=believable(parse_pdf_date(metadata.get("modDate"))),
        page_count=page_count,
        metadata=metadata,
        pages_without_text=without_text,
        pages_partly_unreadable=partly,
    )


#: mupdf's warnings, which tell a damaged stream, go to one buffer for the whole process; and
#: pymupdf does not support threads. One document is read at a time.
_MUPDF: Final = threading.Lock()


def _read_document(
    data: bytes, label: str, password: str | None, max_pages: int, pymupdf: Any
) -> tuple[int, list[list[Line]], dict[int, _Matrix], tuple[int, ...], dict[str, str]]:
    """(page count, each page's lines, the matrices of turned pages, the pages partly unreadable,
    metadata): see _read_pages."""
    doc, page_count = open_document(data, label, password, max_pages, pymupdf)
    try:
        pages, turned, partly = _read_pages(doc, page_count, label, pymupdf)
        metadata = document_metadata(doc)
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
    shown = shortened(str(file))
    if "\x00" in str(file):
        raise IngestError(f"the path {shown!r} contains a NUL character; no file can have it")
    try:
        size = file.stat().st_size
        if file.is_dir():
            raise IngestError(f"{shown!r} is a directory, not a PDF file")
        check_size(size, capitalized(document_label(uri or file.as_posix())), max_bytes)
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


def _read_pages(
    doc: Any, page_count: int, label: str, pymupdf: Any
) -> tuple[list[list[Line]], dict[int, _Matrix], tuple[int, ...]]:
    """Each page's lines; for each page turned by /Rotate (1-based), the matrix that takes
    its lines' boxes back to pymupdf's unrotated coordinates; and the pages (1-based) that kept
    some lines but lost others as unreadable (see :func:`readable`).

    A turned page's text is laid out as the page is shown (mupdf reads it through the page's
    rotation), so a landscape page reads like any other.
    """
    repaired = bool(doc.is_repaired)
    pages: list[list[Line]] = []
    turned: dict[int, _Matrix] = {}
    partly: list[int] = []
    for number in range(page_count):
        try:
            if repaired and lost_content(doc, number):
                raise IngestError(
                    f"{capitalized(label)} is damaged or truncated: page {number + 1} lost its content "
                    "(pymupdf had to repair the file); re-download or re-export it"
                )
            pymupdf.TOOLS.reset_mupdf_warnings()
            page = doc.load_page(number)
            turn = page.rotation_matrix if page.rotation % 360 else None  # text laid out as shown
            lines, area = page_lines(page, turn, pymupdf)
            if damage := _DAMAGED.search(pymupdf.TOOLS.mupdf_warnings()):
                raise IngestError(
                    f"{capitalized(label)} is damaged: the content of page {number + 1} cannot be decoded "
                    f"({damage[0].strip()}), so its text would be incomplete; re-download or re-export it"
                )
            lines = on_page(lines, area)
            if turn is not None and lines:
                turned[number + 1] = tuple(page.derotation_matrix)
            if lines and has_unmapped(lines):  # rare: glyphs without a Unicode mapping
                kept = readable(coded(doc, page, lines, turn, pymupdf))
                if kept and len(kept) < len(lines):
                    partly.append(number + 1)
                lines = kept  # none: listed with the pages that have no text layer
        except IngestError:
            raise
        except mupdf_errors(pymupdf) as exc:
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
