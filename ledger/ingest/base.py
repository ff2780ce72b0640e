"""Drafts: plain values an ingester produces and the store writes in one transaction."""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, NamedTuple

from ledger.errors import IngestError, InvalidInput

SourceKind = Literal["pdf", "web", "text", "conversation"]
BBox = tuple[float, float, float, float]

#: what a message refusing a document over the size limit says to do (the keyword, the CLI option)
RAISE_MAX_BYTES = "pass a larger max_bytes (ledger ingest --max-bytes) to read it"


def check_size(size: int, what: str, max_bytes: int) -> None:
    """IngestError if a document of ``size`` bytes (``what`` names it) is over ``max_bytes``."""
    if size > max_bytes:
        raise IngestError(f"{what} is {size:,} bytes, over the limit of {max_bytes:,} bytes; {RAISE_MAX_BYTES}")


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
    #: 1-based pages with no usable text layer: none, or only lines of mostly unmapped glyphs (they need OCR).
    pages_without_text: tuple[int, ...] = ()
    #: 1-based pages with text that also have lines only OCR can read (mostly unmapped glyphs),
    #: left out of the text.
    pages_partly_unreadable: tuple[int, ...] = ()


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
    """The URL of the document itself, the key its revisions share.

    An http(s) URL is normalized as RFC 3986 (sections 6.2.2 and 6.2.3) says equivalent URLs
    are: scheme and host in lower case, no default port, percent-escapes in upper case and
    unreserved characters unescaped ("%7E" is "~"), no "." or ".." segments, "/" for an empty
    path; and it loses its #fragment and the query parameters that only say how a link was
    shared (``utm_*``, ``fbclid``, ``gclid``, …). Anything else is returned as given.
    """
    from urllib.parse import unquote, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        scheme, host, port = parts.scheme.lower(), parts.hostname, parts.port
    except ValueError:
        return url
    if scheme not in _DEFAULT_PORTS or not host:
        return url
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc = f"{netloc}:{port}"
    if "@" in parts.netloc:
        netloc = f"{_escapes_normalized(parts.netloc.rpartition('@')[0])}@{netloc}"
    path = _without_dot_segments(_escapes_normalized(parts.path)) or "/"
    kept = [piece for piece in parts.query.split("&") if unquote(piece.split("=", 1)[0]).lower() not in _TRACKING]
    return urlunsplit((scheme, netloc, path, _escapes_normalized("&".join(kept)), ""))


_DEFAULT_PORTS = {"http": 80, "https": 443}
_ESCAPE = re.compile("%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")


def _escapes_normalized(part: str) -> str:
    """Percent-escapes with upper-case hex digits; those of unreserved characters decoded."""
    if "%" not in part:
        return part

    def normalized(match: re.Match[str]) -> str:
        char = chr(int(match[1], 16))
        return char if char in _UNRESERVED else f"%{match[1].upper()}"

    return _ESCAPE.sub(normalized, part)


def _without_dot_segments(path: str) -> str:
    """An absolute path with its "." and ".." segments resolved (RFC 3986 section 5.2.4)."""
    if "." not in path or not path.startswith("/"):
        return path
    segments = path.split("/")[1:]
    kept: list[str] = []
    for index, segment in enumerate(segments, start=1):
        if segment in (".", ".."):
            if segment == ".." and kept:
                kept.pop()
            if index == len(segments):  # "/a/." and "/a/b/.." end in a slash
                kept.append("")
        else:
            kept.append(segment)
    return "/" + "/".join(kept)


#: schemes that cannot name a page that was read
_NOT_DOCUMENTS = frozenset({"javascript", "data", "about", "blob", "mailto", "tel"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*\Z")


def shown_url(url: str) -> str:
    """A URL as an error message shows it: its first 200 characters, then "…" (a URL can be
    8,000 characters long; the message should still read as one)."""
    return url if len(url) <= _SHOWN else f"{url[:_SHOWN]}…"


_SHOWN = 200


def check_url(url: str, *, what: str = "url") -> None:
    """InvalidInput unless ``url`` is an absolute URL that could name a document: a scheme,
    no whitespace, and for http(s) a host and a valid port."""
    from urllib.parse import urlsplit

    example = "pass where the page came from, such as 'https://example.org/news/article'"
    if any(char.isspace() for char in url):
        raise InvalidInput(f"{what} {url[:80]!r} contains whitespace; {example} (spaces escaped as %20)")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError for a port out of range or not a number)
    except ValueError as exc:
        raise InvalidInput(f"{what} {url[:80]!r} is not a valid URL ({exc}); {example}") from exc
    if not parts.scheme or not _SCHEME.match(parts.scheme) or not url.lower().startswith(f"{parts.scheme}:"):
        raise InvalidInput(f"{what} {url[:80]!r} is not an absolute URL (no scheme such as https:); {example}")
    if parts.scheme.lower() in _NOT_DOCUMENTS:
        raise InvalidInput(f"{what} {url[:80]!r} is a {parts.scheme}: URL, which names no document; {example}")
    if parts.scheme.lower() in _DEFAULT_PORTS and not parts.hostname:
        raise InvalidInput(f"{what} {url[:80]!r} names no host; {example}")
