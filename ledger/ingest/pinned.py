"""HTTP(S) connections pinned to the address that was checked: resolve once, judge, connect to that IP.

urllib resolves a host name inside ``socket.create_connection``, after anything a caller could
check; a name that resolves to a public address for the check and to 127.0.0.1 for the connect
(DNS rebinding) would slip through. Here the connection resolves the name itself, judges every
address with :func:`ledger.ingest.addresses.refusal`, and connects to an accepted IP; the Host
header, TLS SNI and certificate check still use the name from the URL.

Through a proxy (from the usual environment variables) the proxy connects, so the target name is
resolved and judged here, and the proxy resolves it again: rebinding between the two is the
proxy's to prevent (docs/safety.md).
"""

from __future__ import annotations

import http.client
import socket
import ssl
import urllib.parse
import urllib.request
from typing import Any

from ledger.errors import BlockedAddress
from ledger.ingest.addresses import AddressRule, refusal


def resolved(host: str, port: int, rule: AddressRule) -> list[tuple[Any, ...]]:
    """The addresses ``host`` resolves to that ``rule`` accepts; BlockedAddress when there is none."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    accepted: list[tuple[Any, ...]] = []
    refused: list[str] = []
    for info in infos:
        reason = refusal(str(info[4][0]), rule)
        if reason:
            refused.append(reason)
        else:
            accepted.append(info)
    if not accepted:
        shown = host if host == str(infos[0][4][0]) else f"{host} ({infos[0][4][0]})"
        raise BlockedAddress(
            f"refusing to fetch from {shown}: {refused[0]}; ledger fetches only public addresses unless "
            f"allowed (Ledger.open(..., allow_private=True) or ingest_url(..., allow_private=True))",
            address=str(infos[0][4][0]))
    return accepted


def _connect(host: str, port: int, timeout: float | None, rule: AddressRule) -> socket.socket:
    """A TCP connection to the first accepted address ``host`` resolves to that answers."""
    last: OSError | None = None
    for family, kind, proto, _, address in resolved(host, port, rule):
        sock = socket.socket(family, kind, proto)
        try:
            if timeout is not None:
                sock.settimeout(timeout)
            sock.connect(address)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    assert last is not None
    raise last


class _PinnedHTTP(http.client.HTTPConnection):
    rule = AddressRule()

    def connect(self) -> None:
        self.sock = _connect(self.host, self.port, self.timeout, self.rule)


class _PinnedHTTPS(http.client.HTTPSConnection):
    rule = AddressRule()
    tls = ssl.create_default_context()

    def connect(self) -> None:
        plain = _connect(self.host, self.port, self.timeout, self.rule)
        self.sock = self.tls.wrap_socket(plain, server_hostname=self.host)


def _checked_through_proxy(request: urllib.request.Request, rule: AddressRule) -> None:
    parts = urllib.parse.urlsplit(request.full_url)
    if parts.hostname:
        resolved(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80), rule)


def handlers(rule: AddressRule) -> list[urllib.request.BaseHandler]:
    """urllib handlers whose connections judge every address by ``rule`` before connecting."""
    given = rule

    class Plain(_PinnedHTTP):
        rule = given

    class Secure(_PinnedHTTPS):
        rule = given
        tls = ssl.create_default_context()

    class HTTP(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            if req.has_proxy():
                _checked_through_proxy(req, rule)
                return self.do_open(http.client.HTTPConnection, req)
            return self.do_open(Plain, req)

    class HTTPS(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            if req.has_proxy():
                _checked_through_proxy(req, rule)
                return self.do_open(http.client.HTTPSConnection, req)
            return self.do_open(Secure, req)

    return [HTTP(), HTTPS()]
