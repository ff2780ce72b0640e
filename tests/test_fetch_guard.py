"""Fetching is not a way in: private, loopback, link-local... addresses are refused unless allowed,
after DNS resolution, on every redirect, whatever the spelling of the address."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ledger import BlockedAddress, FetchError, Ledger
from ledger.errors import InvalidInput
from ledger.ingest.addresses import address_rule, refusal
from ledger.ingest.fetch import fetch

PAGE = (b"<html><head><title>Internal</title></head><body><article><p>The internal service answered with "
        b"its configuration page, which lists the build number and the maintenance window.</p></article>"
        b"</body></html>")


class _Handler(BaseHTTPRequestHandler):
    target = ""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.startswith("/redirect") and self.server.target:  # type: ignore[attr-defined]
            self.send_response(302)
            self.send_header("Location", self.server.target)  # type: ignore[attr-defined]
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


def _serve(host: str) -> Iterator[tuple[ThreadingHTTPServer, str]]:
    httpd = ThreadingHTTPServer((host, 0), _Handler)
    httpd.target = ""  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd, f"http://{host}:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture()
def first() -> Iterator[tuple[ThreadingHTTPServer, str]]:
    yield from _serve("127.0.0.1")


@pytest.fixture()
def second() -> Iterator[tuple[ThreadingHTTPServer, str]]:
    yield from _serve("127.0.0.2")  # all of 127.0.0.0/8 is the loopback interface on Linux


def test_a_loopback_server_is_fetched_with_permission_and_refused_without(
        ledger: Ledger, first: tuple[ThreadingHTTPServer, str]) -> None:
    _, base = first
    with pytest.raises(BlockedAddress, match=r"127\.0\.0\.1 is a loopback address") as refused:
        ledger.ingest_url(f"{base}/page")
    assert refused.value.address == "127.0.0.1" and isinstance(refused.value, FetchError)
    assert "allow_private=True" in str(refused.value)
    assert "internal service" in ledger.ingest_url(f"{base}/page", allow_private=True).text


def test_localhost_by_name_is_refused_after_resolution(first: tuple[ThreadingHTTPServer, str]) -> None:
    _, base = first
    port = base.rsplit(":", 1)[1]
    with pytest.raises(BlockedAddress, match=r"localhost \((127\.0\.0\.1|::1)\)"):
        fetch(f"http://localhost:{port}/page", timeout=5)
    assert fetch(f"http://localhost:{port}/page", timeout=5, allow_private=True).data == PAGE


@pytest.mark.parametrize("spelling", ["2130706433", "0x7f.1", "0x7f000001", "017700000001", "127.1", "0177.0.0.1"])
def test_numeric_spellings_of_loopback_are_refused(first: tuple[ThreadingHTTPServer, str], spelling: str) -> None:
    _, base = first
    port = base.rsplit(":", 1)[1]
    with pytest.raises(BlockedAddress, match=r"127\.0\.0\.1 is a loopback address"):
        fetch(f"http://{spelling}:{port}/page", timeout=5)


def test_a_redirect_to_an_address_not_allowed_is_refused(
        first: tuple[ThreadingHTTPServer, str], second: tuple[ThreadingHTTPServer, str]) -> None:
    # 127.0.0.1 stands for a public host (it alone is allowed); 127.0.0.2 for the internal service
    first_server, first_base = first
    _, second_base = second
    first_server.target = f"{second_base}/page"  # type: ignore[attr-defined]
    assert fetch(f"{first_base}/page", timeout=5, allow_private=["127.0.0.1"]).data == PAGE
    with pytest.raises(BlockedAddress, match=r"127\.0\.0\.2 is a loopback address") as refused:
        fetch(f"{first_base}/redirect", timeout=5, allow_private=["127.0.0.1"])
    assert refused.value.address == "127.0.0.2"
    redirected = fetch(f"{first_base}/redirect", timeout=5, allow_private=["127.0.0.0/8"])
    assert redirected.url == f"{second_base}/page" and redirected.data == PAGE


def test_the_ledger_wide_permission_applies_unless_a_call_says_otherwise(
        db_url: str, first: tuple[ThreadingHTTPServer, str]) -> None:
    _, base = first
    with Ledger.open(db_url, allow_private=True) as opened:
        assert "internal service" in opened.ingest_url(f"{base}/page").text
        with pytest.raises(BlockedAddress):
            opened.ingest_url(f"{base}/page?again", allow_private=False)


@pytest.mark.parametrize(("address", "kind"), [
    ("127.0.0.1", "loopback"), ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("192.168.1.1", "private"),
    ("169.254.169.254", "link-local"), ("224.0.0.1", "multicast"), ("0.0.0.0", "unspecified"),
    ("240.0.0.1", "reserved"), ("100.64.0.1", "shared"), ("::1", "loopback"), ("fe80::1", "link-local"),
    ("fc00::1", "private"), ("ff02::1", "multicast"), ("::", "unspecified"),
    ("::ffff:127.0.0.1", "loopback"), ("::ffff:10.0.0.1", "private"), ("::ffff:169.254.169.254", "link-local"),
    ("2002:7f00:1::", "loopback"), ("fe80::1%eth0", "link-local"),
])
def test_non_public_addresses_are_refused_by_kind(address: str, kind: str) -> None:
    reason = refusal(address, address_rule(False))
    assert reason is not None and kind in reason
    assert refusal(address, address_rule(True)) is None


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address: str) -> None:
    assert refusal(address, address_rule(False)) is None


def test_allowed_networks_let_only_themselves_through() -> None:
    rule = address_rule(["10.0.0.0/8", "::1"])
    assert refusal("10.9.9.9", rule) is None and refusal("::ffff:10.1.1.1", rule) is None
    assert refusal("::1", rule) is None
    assert refusal("192.168.0.1", rule) is not None and refusal("127.0.0.1", rule) is not None


@pytest.mark.parametrize("bad", ["not-an-address", ["10.0.0.0/33"], 5])
def test_a_bad_allow_private_is_refused_with_what_to_give(bad: object) -> None:
    with pytest.raises(InvalidInput, match="allow_private"):
        address_rule(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="allow_private"):
        Ledger.open(":memory:", allow_private=bad)  # type: ignore[arg-type]
