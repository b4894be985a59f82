"""One HTTP attempt of a delivery: its request, signed; its total deadline; the guard on the
addresses an endpoint registered through the API may reach; and the Answer it records."""

import asyncio
import base64
import datetime
import email.utils
import functools
import socket
import ssl
import time
import urllib.parse
from typing import NamedTuple

import yarl

from .. import payloads
from ..security.signatures import signature, standard_signature
from .connections import BadAnswer, Connection, Disconnected
from .dialer import Dialer
from .pools import KEEP_IDLE, Pool
from .resolver import Resolver

# Answers whose Retry-After the next attempt honours.
ASKS_TO_WAIT = frozenset((429, 503))
# Receivers whose request line and fixed headers are kept, prepared (the least recently used go).
PREPARED_ROUTES = 4096


class Answer(NamedTuple):
    """How an attempt ended: error is None after a 2xx; status is the answer's, None when there
    was none; retry_after is the seconds a 429 or 503 asked to wait, or None; body is the first
    bytes of the answer's body (connections.BODY_KEPT), None when there was no answer."""

    error: str | None
    status: int | None = None
    retry_after: float | None = None
    body: bytes | None = None


class Route(NamedTuple):
    """Where a receiver's URL leads: its origin (host, port, and whether over TLS) and the
    request's first bytes, the same for every delivery to it."""

    host: str
    port: int
    tls: bool
    head: bytes


@functools.lru_cache(maxsize=PREPARED_ROUTES)
def route(url):
    """The Route of url: its request line, Host, User-Agent, Content-Type and the Basic
    credentials its user name and password give."""
    parsed = yarl.URL(url)
    # An IPv6 zone id names one of this host's interfaces: connected through, never sent in
    # Host (RFC 6874, section 4).
    host = urllib.parse.unquote(parsed.raw_host)
    lines = [
        f"POST {parsed.raw_path_qs} HTTP/1.1",
        f"Host: {parsed.host_port_subcomponent.replace(parsed.raw_host, host.partition('%')[0])}",
        "User-Agent: plantstore",
        "Content-Type: application/json",
    ]
    if parsed.raw_user or parsed.raw_password:
        credentials = _basic(f"{parsed.user or ''}:{parsed.password or ''}")
        lines.append(f"Authorization: Basic {base64.b64encode(credentials).decode()}")
    head = ("\r\n".join(lines) + "\r\n").encode()
    return Route(host, parsed.port, parsed.scheme == "https", head)


def _basic(credentials):
    # Latin-1, as aiohttp sent them; UTF-8 (RFC 7617's charset) where Latin-1 has no character.
    try:
        return credentials.encode("latin-1")
    except UnicodeEncodeError:
        return credentials.encode()


def request(head, target, delivery_id, event, body, event_id=None):
    """The bytes of one attempt after its route's head: event its event type, signed at this
    attempt's time with each of the target's keys (up to three during rotations' overlaps, the
    newest first), with the event's id in the feed when it has one."""
    timestamp = int(time.time())
    signatures = " ".join(
        standard_signature(key, delivery_id, timestamp, body) for key in target.keys
    )
    headers = (
        f"X-Plantstore-Event: {event}\r\n"
        f"X-Plantstore-Delivery: {delivery_id}\r\n"
        f"X-Plantstore-Signature: {signature(target.keys[0], body)}\r\n"
        f"webhook-id: {delivery_id}\r\n"
        f"webhook-timestamp: {timestamp}\r\n"
        f"webhook-signature: {signatures}\r\n"
    )
    if event_id is not None:
        headers += f"Plantstore-Event-Id: {event_id}\r\n"
    headers += f"Content-Length: {len(body)}\r\n\r\n"
    return b"".join((head, headers.encode(), body))


class Sender:
    """Posts deliveries on connections kept open per origin (connections.py), the operator's
    receivers' apart from the guarded endpoints'; an attempt ends at its total deadline,
    however the answer trickles. Each request is sent once: a connection that fails it fails
    the attempt, which the retries then count (RFC 9112, 9.3.1.1: a POST is not sent again)."""

    def __init__(self, timeout, allowed, nameservers=()):
        self.timeout = timeout
        self.allowed = allowed
        self.nameservers = nameservers
        self.pools = {}
        self._dialer = None
        self._tls = None
        self._sweeper = None

    async def send(self, target, delivery_id, event, body, event_id=None):
        """Post body to target; its Answer. Once the status line and headers are in, the status
        decides it, however the body then comes; the Answer has what came of it by then."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        to = route(target.url)
        data = request(to.head, target, delivery_id, event, body, event_id)
        pool = self._pool(loop, to, target.guarded)
        try:
            connection = pool.take() or await self._connect(pool, to, target.guarded, deadline)
            status, retry_after, kept = await connection.exchange(data, deadline)
        except TimeoutError:
            return Answer("timeout")
        except OSError as error:  # BadAnswer and Disconnected among them
            return Answer(_describe(error))
        if 200 <= status < 300:
            return Answer(None, status, None, kept)
        wait = _retry_after(retry_after) if status in ASKS_TO_WAIT else None
        return Answer(f"HTTP {status}", status, wait, kept)

    async def attempt(self, target, delivery):
        """send() a claimed Delivery, its body as the target's payload makes it; its Answer,
        and the exception it raised (None when none): an exception is an outcome too, named by
        its type, so that it is retried on schedule."""
        try:
            body = payloads.body(target.payload, delivery)
            answer = await self.send(
                target, delivery.id, delivery.event_type, body, delivery.event_id
            )
        except Exception as error:  # whatever fails, the attempt must be recorded
            return Answer(type(error).__name__), error
        return answer, None

    def _pool(self, loop, to, guarded):
        key = (guarded, to.host, to.port, to.tls)
        pool = self.pools.get(key)
        if pool is None:
            pool = self.pools[key] = Pool(loop)
            if self._sweeper is None:
                self._sweeper = loop.call_later(KEEP_IDLE, self._sweep, loop)
        return pool

    def _sweep(self, loop):
        # One timer for every idle connection and kept address: those idle past KEEP_IDLE
        # close, empty pools go.
        before = loop.time() - KEEP_IDLE
        self.pools = {key: pool for key, pool in self.pools.items() if pool.expire(before)}
        if self._dialer is not None:
            self._dialer.resolver.expire()
        self._sweeper = loop.call_later(KEEP_IDLE, self._sweep, loop) if self.pools else None

    async def _connect(self, pool, to, guarded, deadline):
        """A new connection to to's origin, opened by deadline."""
        if self._dialer is None:  # c-ares's thread, for a worker that connects at all
            self._dialer = Dialer(Resolver(pool.loop, self.nameservers), self.allowed)
        tls = self._context() if to.tls else None
        pool.opening += 1
        try:
            async with asyncio.timeout_at(deadline):
                return await self._dialer.connect(
                    lambda: Connection(pool), to.host, to.port, tls, guarded
                )
        finally:
            pool.opening -= 1

    def _context(self):
        # Verified against the system's authorities, as a browser would: made once, when needed.
        if self._tls is None:
            self._tls = ssl.create_default_context()
        return self._tls

    async def close(self):
        """Close every kept connection, and stop the lookups."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        for pool in self.pools.values():
            pool.close()
        self.pools = {}
        if self._dialer is not None:
            await self._dialer.resolver.close()
            self._dialer = None
        await asyncio.sleep(0)  # the loop's turn in which the aborted sockets close


def _retry_after(value):
    # Seconds, or an HTTP date (RFC 9110); None when absent or unreadable. ASCII digits only:
    # str.isdigit() takes "²", which float() refuses.
    if value is None:
        return None
    value = value.decode("latin-1").strip()
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):  # a year past datetime's overflows
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - datetime.datetime.now(datetime.UTC)).total_seconds())


def _describe(error):
    # The reason only, never the URL (it may hold a user name and password), named as aiohttp's
    # errors were before: operators' alerts and searches may read these texts.
    if isinstance(error, (Disconnected, BadAnswer)):
        return error.args[0]
    if isinstance(error, ssl.SSLCertVerificationError):
        kind = "ClientConnectorCertificateError"
    elif isinstance(error, ssl.SSLError):
        kind = "ClientConnectorSSLError"
    elif isinstance(error, socket.gaierror):
        kind = "ClientConnectorDNSError"
    else:
        kind = "ClientConnectorError"
    return f"{kind}: {error.strerror}" if error.strerror else kind
