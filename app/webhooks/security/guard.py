"""The guard against request forgery: an endpoint registered through the API never reaches an
address that is not public, unless PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS holds it. The operator's
receivers are trusted and not guarded."""

import ipaddress


def refusal(address, allowed):
    """Why address (text) may not be reached, or None when it may; allowed: ip_networks."""
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)
    if mapped is not None:  # ::ffff:10.0.0.1 reaches 10.0.0.1
        ip = mapped
    if any(ip in network for network in allowed):
        return None
    # is_global leaves out loopback, private, link-local, carrier-grade NAT, unique-local,
    # unspecified and reserved ranges; some multicast ranges count as global.
    if ip.is_global and not ip.is_multicast:
        return None
    return f"{ip} is not a public address"


def literal(host):
    """host as an IP address's text when it is one (brackets removed), else None."""
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None
