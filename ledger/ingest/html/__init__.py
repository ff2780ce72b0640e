"""Web pages: read one's main text and metadata into a source draft (trafilatura's public API).

``read_html`` is pure: bytes or text in, a :class:`SourceDraft` out, nothing stored. Its steps
are modules of this package: ``charset`` (bytes to text, what is not HTML refused), ``mend``
(the tree parsed and repaired where trafilatura would misread it), ``read`` (the main text by
``trafilatura.bare_extraction``, one passage per paragraph-like element) and ``metadata``
(trafilatura's fields checked and completed; ``authors`` cleans names).

The draft's text is the page's main text as trafilatura finds it (boilerplate, comments and
navigation left out), one passage per paragraph-like element (paragraph, heading, list item,
table row, quote paragraph, code block), passages joined by a blank line (``"\\n\\n"``). Inside
a passage a ``<br>`` is a single ``"\\n"``; every other whitespace run is one space, except in
code blocks, which keep their lines (blank lines dropped). Table cells are joined by ``" | "``.
So no passage contains a blank line and ``paragraph_passages(draft.text) == draft.passages``.

Fetching lives in :mod:`ledger.ingest.fetch` (for PDF too); its names are re-exported here.
"""

from __future__ import annotations

from datetime import UTC, datetime

from ledger.errors import IngestError
from ledger.ingest.base import PassageDraft, SourceDraft, check_size, content_hash, document_url, shown_url
from ledger.ingest.fetch import DEFAULT_MAX_BYTES, USER_AGENT, Fetched, fetch, sniff_media_type
from ledger.ingest.html.charset import as_bytes, ascii_compatible, decode, refuse_known_binary, refuse_non_html
from ledger.ingest.html.mend import mend_inline_markup, parse
from ledger.ingest.html.metadata import declared, page_metadata
from ledger.ingest.html.read import CELL_SEPARATOR, extract, has_prose, nothing_read, paragraphs

__all__ = [
    "CELL_SEPARATOR",
    "DEFAULT_MAX_BYTES",
    "PARAGRAPH_SEPARATOR",
    "USER_AGENT",
    "Fetched",
    "fetch",
    "read_html",
    "sniff_media_type",
]

PARAGRAPH_SEPARATOR = "\n\n"


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
    raw = as_bytes(html)
    where = shown_url(url) if url else "the document"
    check_size(len(raw), where, max_bytes)
    if not raw or raw.isspace():
        raise IngestError(f"{where} is empty ({len(raw)} bytes, no content)")
    if retrieved_at is not None and retrieved_at.utcoffset() is None:
        raise IngestError("retrieved_at must be timezone-aware (for example datetime.now(UTC))")
    refuse_known_binary(raw, where)
    if isinstance(html, str):
        # via the bytes: lone surrogates (hashed as given) reach the parser as U+FFFD
        text, codec = raw.decode("utf-8", "replace").removeprefix("\ufeff"), "utf-8"
    else:
        text, codec = decode(raw, encoding)
    if not text or text.isspace():  # a byte-order mark and nothing else, say
        raise IngestError(f"{where} is empty ({len(raw)} bytes, no content)")
    refuse_non_html(text, where)

    # The markup in an ASCII-compatible encoding: the raw bytes unless they are UTF-16 or the like.
    markup = raw if ascii_compatible(codec) else text.encode("utf-8", "surrogatepass")
    tree = parse(text, markup)
    if tree is None:
        raise nothing_read(text, where)
    page = declared(tree, markup)  # before the tree changes
    mend_inline_markup(tree)
    found = extract(tree, text, url, where)
    texts, as_extracted = paragraphs(found["body"], page=tree)
    if not has_prose(as_extracted):
        raise IngestError(
            f"{where} contains no main text; is it a navigation or login page? "
            "(trafilatura found no paragraph of running text)"
        )
    metadata = page_metadata(found, page, tree, markup, url=url, encoding=codec)
    body, passages = _join(texts)
    uri = document_url(url) if url else url
    extra = metadata.extra if url is None or uri == url else {**metadata.extra, "url": url}  # as given
    return SourceDraft(
        kind="web",
        text=body,
        content_hash=content_hash(raw),
        passages=passages,
        uri=uri,
        title=metadata.title,
        author=metadata.author,
        publisher=metadata.publisher,
        published_at=metadata.published_at,
        modified_at=metadata.modified_at,
        retrieved_at=retrieved_at.astimezone(UTC) if retrieved_at is not None else None,
        metadata=extra,
    )


def _join(texts: list[str]) -> tuple[str, tuple[PassageDraft, ...]]:
    """The passages' texts joined by blank lines, and where each one lies in the whole."""
    passages: list[PassageDraft] = []
    position = 0
    for index, text in enumerate(texts):
        if index:
            position += len(PARAGRAPH_SEPARATOR)
        passages.append(PassageDraft(char_start=position, char_end=position + len(text), paragraph=index))
        position += len(text)
    return PARAGRAPH_SEPARATOR.join(texts), tuple(passages)
