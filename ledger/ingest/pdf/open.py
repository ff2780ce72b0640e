"""Open and check a PDF before its text is read: size, header, password, page count, damage;
and its metadata.

Metadata
    ``title`` and ``author`` from the document information; ``published_at`` from its
    creationDate and ``modified_at`` from its modDate as aware UTC datetimes (None when
    absent or malformed; a date without a time zone is read as UTC, see
    :func:`parse_pdf_date`); every non-empty entry pymupdf reports (format, producer,
    the dates as written, ...) in ``metadata``; ``page_count`` counts every page.

Errors
    Every unreadable input raises :class:`~ledger.errors.IngestError` saying what is
    wrong and what to do: empty or oversized data, not a PDF (HTML, text, other
    binary), damaged or truncated files (including files pymupdf can only repair by
    dropping page content), encrypted files without or with a wrong password, and page
    trees claiming more than ``max_pages`` pages.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, Final

from ledger.errors import IngestError
from ledger.ingest.base import check_size

DEFAULT_MAX_BYTES: Final = 200 * 2**20
DEFAULT_MAX_PAGES: Final = 5000


#: the security handler of a PDF encrypted for certificates, named in its /Encrypt dictionary
_PUBLIC_KEY_SECURITY: Final = re.compile(rb"/Filter\s*/Adobe\.PubSec\b")


#: producers' slips are forgiven: a doubled apostrophe ("+01'00''", a Brother scanner's), a
#: one-digit or doubly signed hour ("--5'00'" for -05'00')
_PDF_DATE: Final = re.compile(
    r"(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?"
    r"(?:Z(?:00'*(?:00'*)?)?|([+-])[+-]?(\d{1,2})'*(?:(\d{2})'*)?)?"
)


def open_document(data: bytes, label: str, password: str | None, max_pages: int, pymupdf: Any) -> tuple[Any, int]:
    """The opened (and unlocked) document and its page count; the caller closes the document."""
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except mupdf_errors(pymupdf) as exc:
        if _PUBLIC_KEY_SECURITY.search(data):
            raise IngestError(
                f"{capitalized(label)} is encrypted for the holders of certificates (public-key security, "
                "/Adobe.PubSec), which pymupdf cannot open; decrypt it with the recipient's certificate "
                "and private key first (Acrobat or pyHanko can), then ingest the decrypted file"
            ) from exc
        raise IngestError(
            f"{capitalized(label)} is damaged or truncated and cannot be opened ({exc}); "
            "re-download or re-export it"
        ) from exc
    try:
        if doc.is_repaired and cut_short(data):
            # An interrupted download: what mupdf rebuilds can lack the fonts and objects
            # stored last, and read as garbage or as pages without text.
            raise IngestError(
                f"{capitalized(label)} is damaged or truncated: its last object is not followed by the %%EOF "
                "marker that ends every complete PDF, and pymupdf had to repair it; re-download or re-export it"
            )
        unlock(doc, label, password)
        return doc, checked_page_count(doc, label, max_pages, pymupdf)
    except BaseException:
        doc.close()
        raise


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


def believable(stamp: datetime | None) -> datetime | None:
    """``stamp`` unless it is before 1993 or more than a day ahead of now (a wrong clock)."""
    if stamp is None or not _FIRST_PDF <= stamp <= datetime.now(UTC) + timedelta(days=1):
        return None
    return stamp


def load_pymupdf() -> Any:
    """The pymupdf module, imported on first use."""
    import pymupdf

    return pymupdf


def mupdf_errors(pymupdf: Any, *more: type[Exception]) -> tuple[type[Exception], ...]:
    """The exceptions pymupdf raises for unreadable documents (plus ``more``)."""
    return (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase, *more)


def document_label(uri: str | None) -> str:
    """How messages name the document: its URI when known."""
    return f"PDF {shortened(uri)!r}" if uri else "the PDF"


def shortened(text: str, limit: int = 160) -> str:
    """``text`` cut in the middle to at most about ``limit`` characters, for messages."""
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-(limit // 3):]}"


def capitalized(label: str) -> str:
    """``label`` with its first letter in upper case, to start a message."""
    return label[:1].upper() + label[1:]


def check_bytes(data: bytes, label: str, max_bytes: int) -> None:
    """Refuse data over ``max_bytes``, empty data, and data without a %PDF- header."""
    check_size(len(data), capitalized(label), max_bytes)
    if not data:
        raise IngestError(
            f"{capitalized(label)} is empty (0 bytes); check that the file was fully written"
        )
    if b"%PDF-" not in data[:1024]:
        raise IngestError(f"{capitalized(label)} is not a PDF: {_sniff(data)}; it has no %PDF- header")


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


def unlock(doc: Any, label: str, password: str | None) -> None:
    """Open an encrypted document with ``password``; refuse it without one or with a wrong one."""
    if not doc.needs_pass:
        return
    if password is None:
        raise IngestError(
            f"{capitalized(label)} is encrypted; pass its password (password=..., or ledger ingest --password) "
            "to read it")
    if not doc.authenticate(password):
        raise IngestError(
            f"wrong password for {label}: the password given does not open it; "
            "check the password"
        )


def checked_page_count(doc: Any, label: str, max_pages: int, pymupdf: Any) -> int:
    """The document's page count; refused when it claims more than ``max_pages`` or none."""
    claimed = _claimed_page_count(doc, pymupdf)
    if claimed is not None and claimed > max_pages:
        raise IngestError(
            f"{capitalized(label)} claims {claimed} pages; the limit is {max_pages} "
            "(if the document is genuine, pass a larger max_pages: ledger ingest --max-pages)"
        )
    try:
        count = int(doc.page_count)
    except mupdf_errors(pymupdf) as exc:
        raise IngestError(
            f"{capitalized(label)} is damaged or truncated: its page tree cannot be read ({exc}); "
            "re-download or re-export it"
        ) from exc
    if count > max_pages:
        raise IngestError(
            f"{capitalized(label)} claims {count} pages; the limit is {max_pages} "
            "(if the document is genuine, pass a larger max_pages: ledger ingest --max-pages)"
        )
    if count == 0:
        raise IngestError(
            f"{capitalized(label)} has no pages; it is damaged or truncated - re-download or re-export it"
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
    except mupdf_errors(pymupdf, IndexError):
        return None


def cut_short(data: bytes) -> bool:
    """Whether the file ends before the %%EOF that closes its last object (padding or a page
    appended after a complete file do not count)."""
    return data.rfind(b"%%EOF") < max(data.rfind(b"endobj"), data.rfind(b"endstream"))


def lost_content(doc: Any, page_number: int) -> bool:
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


def document_metadata(doc: Any) -> dict[str, str]:
    """Every non-empty entry of the document information, without NULs or surrounding spaces."""
    raw = doc.metadata or {}
    # UTF-16 strings padded with NULs (some producers write them) would be refused by the store
    cleaned = {str(key): value.replace("\x00", "").strip() for key, value in raw.items() if isinstance(value, str)}
    return {key: value for key, value in cleaned.items() if value}
