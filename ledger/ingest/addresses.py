"""Which network addresses a fetch may connect to (pure): public ones, unless private ones are allowed.

A URL given to ``ingest_url`` (by a person, or by an agent passing on text from anywhere) must not
make the ledger fetch internal services. Every address a fetch connects to, after DNS resolution
and on every redirect, is judged here by ``ipaddress``'s own properties.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["AddressRule", "address_rule", "refusal"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
#: Shared address space (RFC 6598, carrier-grade NAT): neither private nor global in ipaddress
_SHARED = ipaddress.ip_network("100.64.0.0/10")


@dataclass(frozen=True, slots=True)
class AddressRule:
    """What a fetch may connect to: public addresses always; private ones if ``everything`` or
    when inside one of ``networks``."""

    everything: bool = False
    networks: tuple[IPNetwork, ...] = ()


def address_rule(allow_private: bool | Iterable[str]) -> AddressRule:
    """The rule for an ``allow_private=`` argument: True, False, or addresses/networks (CIDR) allowed."""
    from ledger.errors import InvalidInput

    if isinstance(allow_private, bool):
        return AddressRule(everything=allow_private)
    if isinstance(allow_private, str):
        allow_private = [allow_private]
    networks: list[IPNetwork] = []
    try:
        for item in allow_private:
            networks.append(ipaddress.ip_network(str(item), strict=False))
    except TypeError as exc:
        raise InvalidInput(f"allow_private must be True, False or a list of addresses or networks, "
                           f"not {type(allow_private).__name__}") from exc
    except ValueError as exc:
        raise InvalidInput(f"allow_private: {exc} (give addresses such as '10.0.0.5' or networks such as "
                           f"'10.0.0.0/8')") from exc
    return AddressRule(networks=tuple(networks))


def refusal(address: str, rule: AddressRule) -> str | None:
    """Why ``address`` (a resolved IP, as a socket gives it) may not be connected to, or None if it may."""
    try:
        ip: IPAddress = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone id is not the address
    except ValueError:
        return f"{address!r} is not an IP address"
    kind = _private_kind(ip)
    if kind is None or rule.everything:
        return None
    if any(candidate in network for network in rule.networks for candidate in (ip, _mapped(ip))):
        return None
    shown = f"{ip} ({_mapped(ip)})" if _mapped(ip) != ip else str(ip)
    return f"{shown} is a {kind} address"


def _mapped(ip: IPAddress) -> IPAddress:
    """The IPv4 address an IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible IPv6 address carries."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip.sixtofour is not None:
            return ip.sixtofour
        if int(ip) >> 32 == 0 and int(ip) > 1:  # ::a.b.c.d, deprecated but still routed by some stacks
            return ipaddress.IPv4Address(int(ip))
    return ip


def _private_kind(ip: IPAddress) -> str | None:
    """The kind of non-public address ``ip`` is (loopback, private, ...), or None for a public one."""
    # an IPv4-mapped (or 6to4) address reaches its IPv4 address: that one is judged, not its prefix
    # (::ffff:0:0/96 is "reserved" to ipaddress whatever it carries)
    mapped = _mapped(ip)
    for candidate in (mapped,) if mapped != ip else (ip,):
        for kind, test in (("unspecified", candidate.is_unspecified), ("loopback", candidate.is_loopback),
                           ("link-local", candidate.is_link_local), ("multicast", candidate.is_multicast),
                           ("reserved", candidate.is_reserved), ("private", candidate.is_private),
                           ("shared (carrier-grade NAT)", candidate in _SHARED)):
            if test:
                return kind
        if not candidate.is_global:
            return "non-public"
    return None
