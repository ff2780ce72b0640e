"""Read a PDF into a source draft: text in reading order, one passage per line.

The ingester is pure: bytes in, :class:`~ledger.ingest.base.SourceDraft` out, no
database. pymupdf is imported on first use so that ``import ledger`` stays cheap.

Text layout of ``SourceDraft.text``
    Lines of a paragraph are joined by ``"\\n"`` (pieces of one row that mupdf cut apart by a
    space, or by nothing where they touch: see :mod:`~ledger.ingest.pdf.layout`); paragraphs (blocks) by ``"\\n\\n"``;
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

Passages
    One :class:`~ledger.ingest.base.PassageDraft` per text line, in text order, never
    overlapping: ``page`` (1-based), ``bbox`` (x0, y0, x1, y1) of the line as pymupdf
    reports it (points, origin top-left, unrotated page), ``paragraph`` (0-based index
    of the paragraph in the whole document) and ``char_start``/``char_end`` into the
    text. ``text[char_start:char_end]`` is the line's normalized text: stripped of
    surrounding whitespace, and without its trailing hyphen when it was joined.

The modules, in the order a document goes through them:
    :mod:`~ledger.ingest.pdf.read` (:func:`read_pdf`, :func:`read_pdf_file`) drives the rest;
    :mod:`~ledger.ingest.pdf.open` opens and checks the document (size, header, password, page
    count, damage) and reads its metadata; :mod:`~ledger.ingest.pdf.text` takes each page's
    lines from mupdf and normalizes them; :mod:`~ledger.ingest.pdf.ocr` leaves out what only
    OCR can read; :mod:`~ledger.ingest.pdf.layout` and :mod:`~ledger.ingest.pdf.columns` put
    a page's lines in reading order; :mod:`~ledger.ingest.pdf.assemble` joins them into the
    text and its passages.
"""

from ledger.ingest.pdf.open import DEFAULT_MAX_BYTES, DEFAULT_MAX_PAGES, parse_pdf_date
from ledger.ingest.pdf.read import read_pdf, read_pdf_file

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_PAGES", "parse_pdf_date", "read_pdf", "read_pdf_file"]
