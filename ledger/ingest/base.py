"""Drafts: plain values an ingester produces and the store writes in one transaction."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, NamedTuple

SourceKind = Literal["pdf", "web", "text", "conversation"]
BBox = tuple[float, float, float, float]

#: what the message refusing a document over the size limit says to do (the keyword, the CLI option)
RAISE_MAX_BYTES = "pass a larger max_bytes (ledger ingest --max-bytes) to read it"


class PassageDraft(NamedTuple):
    """A unit of the source text: ``text[char_start:char_end]`` with where it sits.

    ``page`` is 1-based (None for non-paged sources); ``bbox`` is (x0, y0, x1, y1) in PDF
    points with the origin top-left, as pymupdf reports it; ``paragraph`` is the 0-based
    paragraph (or block) index within the document. A named tuple: a book has tens of
    thousands of them, and the store takes them column by column.
    """

    char_start: int
    char_end: int
    page: int | None = None
    bbox: BBox | None = None
    paragraph: int | None = None


@dataclass(frozen=True, slots=True)
class SourceDraft:
    """A document read into text and passages, not yet stored."""

    kind: SourceKind
    text: str
    content_hash: str
    passages: tuple[PassageDraft, ...]
    uri: str | None = None
    title: str | None = None
    author: str | None = None
    publisher: str | None = None
    published_at: datetime | None = None
    modified_at: datetime | None = None
    retrieved_at: datetime | None = None
    page_count: int | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    #: 1-based pages with no usable text layer: none, or mostly unmapped glyphs (they need OCR).
    pages_without_text: tuple[int, ...] = ()


def content_hash(data: bytes) -> str:
    """sha256 hex digest of the original bytes."""
    return hashlib.sha256(data).hexdigest()


def paragraph_passages(text: str) -> tuple[PassageDraft, ...]:
    """Split plain text into paragraphs (runs of non-blank lines) as passages."""
    passages: list[PassageDraft] = []
    start: int | None = None
    pos = 0
    for line in text.splitlines(keepends=True):
        blank = not line.strip()
        if not blank and start is None:
            start = pos
        if blank and start is not None:
            passages.append(_trimmed(text, start, pos, len(passages)))
            start = None
        pos += len(line)
    if start is not None:
        passages.append(_trimmed(text, start, pos, len(passages)))
    return tuple(passages)


def _trimmed(text: str, start: int, end: int, index: int) -> PassageDraft:
    while end > start and text[end - 1].isspace():
        end -= 1
    while start < end and text[start].isspace():
        start += 1
    return PassageDraft(char_start=start, char_end=end, paragraph=index)


#: Query parameters that say how a link was shared, not which document it names.
_TRACKING = frozenset({"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id",
                       "fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "igshid"})


def document_url(url: str) -> str:
    """The URL of the document itself, the key its revisions share: without a #fragment and
    without tracking parameters (``utm_*``, ``fbclid``, ``gclid``, …); anything else as given."""
    from urllib.parse import unquote, urlsplit, urlunsplit

    if "#" not in url and "=" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.scheme.lower() not in ("http", "https"):
        return url
    kept = [piece for piece in parts.query.split("&") if unquote(piece.split("=", 1)[0]).lower() not in _TRACKING]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "&".join(kept), ""))
