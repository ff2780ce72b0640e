"""Fetching a document over HTTP(S) for the ingesters: one GET with the standard library.

http and https only, a size limit enforced while streaming, redirects followed by hand (loops
detected), a whole-fetch timeout, HTML/XHTML and PDF only (sniffed when unlabelled).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ledger.errors import FetchError, IngestError, InvalidInput
from ledger.ingest.base import RAISE_MAX_BYTES, shown_url

if TYPE_CHECKING:
    import urllib.request
    from collections.abc import Iterable

    from ledger.ingest.addresses import AddressRule
    from http.client import HTTPMessage, HTTPResponse

__all__ = ["DEFAULT_MAX_BYTES", "USER_AGENT", "Fetched", "fetch", "sniff_media_type"]

#: the most a fetch (and a web page read) takes by default
DEFAULT_MAX_BYTES = 20 * 2**20
USER_AGENT = "ledger/0.1 (a source-backed claim ledger for research agents; Python urllib)"
_ACCEPT = "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,*/*;q=0.1"
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_FETCHABLE_TYPES = _HTML_TYPES | {"application/pdf"}
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
RAISE_TIMEOUT = "pass a longer timeout (ledger ingest --timeout) for a slow server"


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
    allow_private: bool | Iterable[str] = False,
) -> Fetched:
    """GET an http(s) URL: HTML or PDF only, at most max_bytes, at most max_redirects redirects.

    ``timeout`` (seconds) bounds the whole fetch, redirects and download included (a server
    that sends a byte now and then is cut off too), give or take one read. Proxies come from
    the usual environment variables. Only ``Content-Encoding`` gzip/deflate is decoded (ledger
    asks for none).

    Raises:
        BlockedAddress: the host (or a redirect's) resolves only to addresses not allowed.
        FetchError: unreachable host, timeout, HTTP error status, redirect loop or too many
            redirects, a connection closed early or an empty body.
        IngestError: bad scheme or URL, a content type other than HTML/XHTML/PDF, an encoding
            ledger does not decode, or too large.
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
    from ledger.ingest.addresses import address_rule

    rule = address_rule(allow_private)
    current = _fetchable(url, shown_url(url))
    chain = [current]
    opener = _opener(rule)
    deadline = time.monotonic() + timeout
    while True:
        request = urllib.request.Request(current, headers={"User-Agent": USER_AGENT, "Accept": _ACCEPT})
        try:
            response = opener.open(request, timeout=_remaining(deadline, current, timeout))
        except urllib.error.HTTPError as exc:
            with exc:
                if exc.code not in _REDIRECTS:
                    raise FetchError(f"{shown_url(current)} answered HTTP {exc.code} {exc.reason}") from exc
                location = exc.headers.get("Location")
            if not location:
                raise FetchError(f"{shown_url(current)} answered HTTP {exc.code} without a Location to redirect to") from exc
            target = _fetchable(_escaped(urllib.parse.urljoin(current, location.strip())),
                                f"{shown_url(current)} redirects to {shown_url(location)!r}")
            if target in chain:
                raise FetchError(f"redirect loop: {' -> '.join(map(shown_url, [*chain, target]))}") from exc
            if len(chain) > max_redirects:
                raise FetchError(
                    f"{shown_url(url)} redirects more than {max_redirects} times: {' -> '.join(map(shown_url, [*chain, target]))}"
                ) from exc
            chain.append(target)
            current = target
            continue
        except urllib.error.URLError as exc:
            raise FetchError(f"could not fetch {shown_url(current)}: {_cause(exc.reason, timeout)}") from exc
        except (OSError, HTTPException) as exc:
            raise FetchError(f"could not fetch {shown_url(current)}: {_cause(exc, timeout)}") from exc
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
    """Seconds left before ``deadline``; FetchError once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise FetchError(f"could not fetch {shown_url(url)}: timed out after {timeout:g} s; {RAISE_TIMEOUT}")
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
                raise FetchError(f"could not read {where}: timed out after {timeout:g} s "
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
        raise FetchError(f"could not read {where}: {_cause(exc, timeout)}") from exc
    if length is not None and received < length:
        # http.client ends a short body quietly instead of raising IncompleteRead
        raise FetchError(f"could not read {where}: the connection closed after {received:,} of {length:,} bytes")
    data = b"".join(chunks)
    if not data.strip():
        raise FetchError(f"{where} answered HTTP {response.status} with an empty body")
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


def _opener(rule: AddressRule) -> urllib.request.OpenerDirector:
    """An opener that hands every redirect back as an HTTPError, so fetch follows them itself, and
    whose connections judge the address they connect to by ``rule`` (ledger.ingest.pinned)."""
    import urllib.request

    from ledger.ingest.pinned import handlers

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    return urllib.request.build_opener(NoRedirect(), *handlers(rule))
