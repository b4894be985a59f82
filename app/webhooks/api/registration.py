"""The address rule when an endpoint is registered or its URL changed: its host, as the worker's
HTTP client will reach it, must be, and resolve to, public addresses only, unless
PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS holds them.

A name that does not resolve is accepted: the worker checks every connection again, on the
addresses the name resolves to then.
"""

import contextlib
import socket
import threading

from marshmallow import ValidationError

from ..security import guard

# Longest wait for DNS, in seconds: a resolver that hangs must not hang the request.
RESOLVE_TIMEOUT = 2


def check(url, allowed, resolve=socket.getaddrinfo, timeout=RESOLVE_TIMEOUT):
    """Raise a ValidationError of url naming an address it may not reach; allowed: networks.

    resolve is getaddrinfo's signature; a lookup that outlasts timeout counts as no address.
    """
    host = guard.host(url)
    literal = guard.literal(host)
    if literal is not None:
        refused = guard.refusal(literal, allowed)
        if refused:
            raise ValidationError({"url": [f"{refused}."]})
        return
    for address in addresses(host, resolve, timeout):
        refused = guard.refusal(address, allowed)
        if refused:
            raise ValidationError({"url": [f"{refused} ({host} resolves to it)."]})


def addresses(host, resolve=socket.getaddrinfo, timeout=RESOLVE_TIMEOUT):
    """The addresses host resolves to, as text; none when it does not resolve within timeout."""
    found = []

    def lookup():
        with contextlib.suppress(OSError, UnicodeError):  # it does not resolve
            found.extend(info[4][0] for info in resolve(host, None, type=socket.SOCK_STREAM))

    # A thread of its own, not a pool's: one that hangs in the resolver holds up nobody.
    thread = threading.Thread(target=lookup, name=f"resolve {host}", daemon=True)
    thread.start()
    thread.join(timeout)
    return [] if thread.is_alive() else list(found)
