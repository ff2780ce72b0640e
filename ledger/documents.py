"""Documents to source drafts: the ingesters called with checked arguments, before anything is
stored. A PDF, a web page given as bytes, text or a file, and a URL fetched as either."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path

from ledger import files, sources, validate
from ledger.errors import IngestError, InvalidInput, NeedsOCR
from ledger.ingest.base import SourceDraft
from ledger.timeline import TimeInput


def pdf_draft(
    path_or_bytes: str | os.PathLike[str] | bytes, *, uri: str | None, password: str | None,
    max_pages: int | None, max_bytes: int | None, retrieved_at: TimeInput | None,
) -> SourceDraft:
    """A PDF read into a draft; NeedsOCR when no page has a text layer, before anything is stored."""
    from ledger.ingest.pdf import DEFAULT_MAX_BYTES, DEFAULT_MAX_PAGES, read_pdf, read_pdf_file

    sources.check_metadata(uri=uri)
    pages = validate.limit(max_pages, "max_pages", DEFAULT_MAX_PAGES)
    size = validate.limit(max_bytes, "max_bytes", DEFAULT_MAX_BYTES)
    if password is not None and not isinstance(password, str):
        raise InvalidInput(f"password must be a string or None, not {type(password).__name__}")
    retrieved = validate.moment(retrieved_at, "retrieved_at")
    if isinstance(path_or_bytes, (bytes, bytearray)):
        draft = read_pdf(bytes(path_or_bytes), uri=uri, password=password, max_pages=pages, max_bytes=size)
    elif isinstance(path_or_bytes, (str, os.PathLike)):
        path = files.checked_path(path_or_bytes, what="ingest_pdf")
        draft = read_pdf_file(path, uri=uri, password=password, max_pages=pages, max_bytes=size)
    else:
        raise IngestError(f"ingest_pdf takes a file path or the PDF's bytes, not {type(path_or_bytes).__name__}")
    if draft.page_count and len(draft.pages_without_text) == draft.page_count:
        listed = ", ".join(map(str, draft.pages_without_text))
        raise NeedsOCR(f"{draft.uri or 'the PDF'} has no readable text layer on any page ({listed}); nothing was "
                       f"stored: OCR it (e.g. with ocrmypdf) and ingest the result", pages=draft.pages_without_text)
    return draft if retrieved is None else dataclasses.replace(draft, retrieved_at=retrieved)


def html_draft(
    html: str | bytes | os.PathLike[str], *, url: str | None, retrieved_at: TimeInput | None,
    encoding: str | None, max_bytes: int | None,
) -> SourceDraft:
    """A web page (bytes, HTML text, or a file's Path) read into a draft."""
    from ledger.ingest.base import check_url, document_url
    from ledger.ingest.html import DEFAULT_MAX_BYTES, read_html

    if not isinstance(html, (str, bytes, os.PathLike)):
        raise IngestError(f"ingest_html takes the page's bytes, its HTML as str or a file's Path, "
                          f"not {type(html).__name__}")
    path = files.checked_path(html, what="ingest_html") if isinstance(html, os.PathLike) else None
    url = files.file_uri(path) if url is None and path is not None else url
    if url is None:
        raise InvalidInput("url is required for a page given as text or bytes; pass where it came from, "
                           "such as 'https://example.org/news/article'")
    sources.check_metadata(url=url)
    check_url(url)
    sources.check_stored_uri(document_url(url), what="url", given=url)
    size = validate.limit(max_bytes, "max_bytes", DEFAULT_MAX_BYTES)
    if encoding is not None and not isinstance(encoding, str):
        raise InvalidInput(f"encoding must be a charset name or None, not {type(encoding).__name__}")
    retrieved = validate.moment(retrieved_at, "retrieved_at")
    page = files.read_limited(Path(path), max_bytes=size) if path is not None else html
    assert not isinstance(page, os.PathLike)
    return read_html(page, url=url, retrieved_at=retrieved, encoding=encoding, max_bytes=size)


def url_draft(url: str, *, timeout: float, max_bytes: int | None,
              allow_private: bool | Iterable[str] = False) -> SourceDraft:
    """A URL fetched (one GET within ``timeout`` and ``max_bytes``) and read as a PDF or a web page."""
    from ledger.ingest.base import check_url, document_url
    from ledger.ingest.fetch import DEFAULT_MAX_BYTES, fetch

    size = validate.limit(max_bytes, "max_bytes", DEFAULT_MAX_BYTES)
    if isinstance(url, str) and len(url) > sources.MAX_URI_BYTES // 4:  # (shorter ones fit in any case)
        check_url(url)
        sources.check_stored_uri(document_url(url), what="url", given=url)
    fetched = fetch(url, timeout=timeout, max_bytes=size, allow_private=allow_private)
    # the ingesters take the same limit: their own defaults differ from the fetch's
    if fetched.content_type == "application/pdf":
        return pdf_draft(fetched.data, uri=document_url(fetched.url), password=None, max_pages=None,
                         max_bytes=size, retrieved_at=fetched.retrieved_at)
    return html_draft(fetched.data, url=fetched.url, retrieved_at=fetched.retrieved_at, encoding=fetched.charset,
                      max_bytes=size)
