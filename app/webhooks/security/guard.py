"""The guard against request forgery: an endpoint registered through the API never reaches an
address that is not public, unless PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS holds it. The operator's
receivers are trusted and not guarded.

A host is judged as the HTTP client reaches it (``host``), and an address by the service's own
tables below, never by Python's ``is_global``, whose answers change between Python versions. An
IPv6 address that carries an IPv4 address is judged by that address too.
"""

import ipaddress
from urllib.parse import urlsplit


def _last_32_bits(ip):
    return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)


def _compatible(ip):
    return _last_32_bits(ip) if int(ip) > 1 else None  # :: and ::1 carry nothing


def _networks(rows):
    return tuple((ipaddress.ip_network(cidr), *rest) for cidr, *rest in rows)


# Never public: (network, why), from IANA's special-purpose registries (the rows not globally
# reachable, but for 2001::/23's unallocated rest), with multicast and the deprecated ranges
# that no receiver lives in.
NOT_PUBLIC = _networks(
    (
        ("0.0.0.0/8", "this network: 0.0.0.0 reaches the host itself"),
        ("10.0.0.0/8", "private (RFC 1918)"),
        ("100.64.0.0/10", "carrier-grade NAT (RFC 6598): the provider's own network"),
        ("127.0.0.0/8", "loopback: the worker's own host"),
        ("169.254.0.0/16", "link-local, where clouds serve metadata (169.254.169.254)"),
        ("172.16.0.0/12", "private (RFC 1918)"),
        ("192.0.0.0/24", "IETF protocol assignments (RFC 6890)"),
        ("192.0.2.0/24", "documentation, TEST-NET-1 (RFC 5737)"),
        ("192.88.99.0/24", "6to4 relay anycast, deprecated (RFC 7526)"),
        ("192.168.0.0/16", "private (RFC 1918)"),
        ("198.18.0.0/15", "benchmarking (RFC 2544)"),
        ("198.51.100.0/24", "documentation, TEST-NET-2 (RFC 5737)"),
        ("203.0.113.0/24", "documentation, TEST-NET-3 (RFC 5737)"),
        ("224.0.0.0/4", "multicast: no one receiver"),
        ("240.0.0.0/4", "reserved, and the broadcast address 255.255.255.255"),
        ("::/96", "IPv4-compatible (RFC 4291), deprecated; :: and ::1 are in it"),
        ("64:ff9b:1::/48", "NAT64 for local use (RFC 8215): translated into a local network"),
        ("100::/64", "discard-only (RFC 6666)"),
        ("2001:2::/48", "benchmarking (RFC 5180)"),
        ("2001:10::/28", "ORCHID, deprecated (RFC 4843)"),
        ("2001:db8::/32", "documentation (RFC 3849)"),
        ("3fff::/20", "documentation (RFC 9637)"),
        ("5f00::/16", "SRv6 segment identifiers (RFC 9602)"),
        ("fc00::/7", "unique-local (RFC 4193): a private network's"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local, deprecated (RFC 3879): a private network's"),
        ("ff00::/8", "multicast: no one receiver"),
    )
)
# IPv6 outside global unicast (2000::/3) is reserved by the IETF or listed above: not public,
# but for the carriers below whose IPv4 alone is judged (IPv4-mapped, NAT64).
GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")

# IPv6 addresses that carry an IPv4 address: (network, a function giving the carried address
# or None, whether the carried address alone is judged, why it is judged).
CARRIERS = _networks(
    (
        ("::ffff:0:0/96", _last_32_bits, True, "IPv4-mapped: the socket connects to the IPv4"),
        ("64:ff9b::/96", _last_32_bits, True, "NAT64: the gateway connects to the IPv4"),
        ("::/96", _compatible, False, "IPv4-compatible: tunnels to the IPv4"),
        ("2002::/16", lambda ip: ip.sixtofour, False, "6to4: relays reach the IPv4"),
        ("2001::/32", lambda ip: ip.teredo[1], False, "Teredo: relays reach its client's IPv4"),
    )
)


def refusal(address, allowed):
    """Why address (text) may not be reached, or None when it may; allowed: ip_networks.

    Each address judged (the one it carries first, so that the refusal names it) must be public
    or inside allowed."""
    for each in _judged(ipaddress.ip_address(address)):
        if not _public(each) and not any(each in network for network in allowed):
            # Named, so that whoever is refused learns what would allow the address.
            return f"{each} is not a public address, nor in PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS"
    return None


def _judged(ip):
    if ip.version == 6:
        for network, carried, alone, _why in CARRIERS:
            inner = carried(ip) if ip in network else None
            if inner is not None:
                return (inner,) if alone else (inner, ip)
    return (ip,)


def _public(ip):
    if ip.version == 6 and ip not in GLOBAL_UNICAST:
        return False
    return not any(ip in network for network, _why in NOT_PUBLIC)


def host(url):
    """url's host as the HTTP client reaches it, an address without brackets or a name in ASCII:
    mapped by the client's own IDNA (UTS-46) code, so that '127.0.0.' and a Unicode digit one is
    127.0.0.1. ValueError when the client could not reach it, or it has no host."""
    # Imported here: the web workers need yarl (and idna's tables) only to register an endpoint.
    from yarl import URL

    found = URL(url).raw_host
    if not found:
        raise ValueError("no host")
    # Brackets hold an IPv6 address alone: yarl drops them around an "IPvFuture" ([v1.x]).
    bracketed = urlsplit(url).netloc.rpartition("@")[2].startswith("[")
    address = literal(found)
    if bracketed and (address is None or ipaddress.ip_address(address).version != 6):
        raise ValueError("not an IPv6 address in brackets")
    return found


def literal(host):
    """host as an IP address's text when it is one (brackets removed), else None."""
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None
