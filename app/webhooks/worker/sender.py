"""One HTTP attempt of a delivery: its headers, its signatures, its total deadline, and the
guard on the addresses an endpoint registered through the API may reach."""

import datetime
import email.utils
import errno
import socket
import time
from typing import NamedTuple

import aiohttp

from ..security import guard
from ..security.signatures import signature, standard_signature

# Largest answer body read to keep the connection for the next delivery; a longer one closes it.
KEEP_BODY_LIMIT = 64 * 1024
# Answers that have no body (RFC 9110): the connection carries the next delivery as it is.
BODILESS = frozenset((204, 304))
# Answers whose Retry-After the next attempt honours.
ASKS_TO_WAIT = frozenset((429, 503))


class Answer(NamedTuple):
    """How an attempt ended: error is None after a 2xx; status is the answer's, None when there
    was none; retry_after is the seconds a 429 or 503 asked to wait, or None."""

    error: str | None
    status: int | None = None
    retry_after: float | None = None


class NotPublic(OSError):
    """A guarded receiver's connection would reach an address the guard refuses."""


def guarded_sockets(allowed):
    """aiohttp's socket_factory for the endpoints' session: a socket to an address the guard
    allows, else NotPublic. Every connection is judged on the address it connects to, an
    address literal (which never passes through a resolver) as much as a resolved name."""

    def socket_to(addr_info):
        family, kind, proto, _name, address = addr_info
        try:
            why = guard.refusal(address[0], allowed)
        except ValueError:  # not an address at all: nothing to connect to
            why = f"{address[0]} is not an address"
        if why:
            raise NotPublic(errno.EACCES, why)
        return socket.socket(family, kind, proto)

    return socket_to


class Sender:
    """Posts deliveries on two aiohttp sessions (the operator's receivers, and the guarded
    endpoints): connections stay open per receiver, and ClientTimeout(total=timeout) ends an
    attempt at its deadline however the answer trickles."""

    def __init__(self, timeout, connections, allowed):
        self.trusted = self._session(timeout, connections, None)
        self.guarded = self._session(timeout, connections, guarded_sockets(allowed))

    @staticmethod
    def _session(timeout, connections, socket_factory):
        return aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=connections, socket_factory=socket_factory),
            timeout=aiohttp.ClientTimeout(total=timeout),
            headers={"User-Agent": "plantstore"},
            # Only the status counts: the answer is never decoded.
            auto_decompress=False,
        )

    @staticmethod
    def headers(target, delivery_id, event, body, event_id=None):
        """Every header of one attempt, signed at this attempt's time with each of the
        target's keys (up to three during rotations' overlaps, the newest first), and the
        event's id in the feed when it has one."""
        timestamp = int(time.time())
        headers = {
            "Content-Type": "application/json",
            "X-Plantstore-Event": event,
            "X-Plantstore-Delivery": delivery_id,
            "X-Plantstore-Signature": signature(target.keys[0], body),
            "webhook-id": delivery_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": " ".join(
                standard_signature(key, delivery_id, timestamp, body) for key in target.keys
            ),
        }
        if event_id is not None:
            headers["Plantstore-Event-Id"] = event_id
        return headers

    async def send(self, target, delivery_id, event, body, event_id=None):
        """Post body to target; its Answer. Once the status line and headers are in, the status
        decides it, however the body then comes."""
        try:
            async with (self.guarded if target.guarded else self.trusted).post(
                target.url,
                data=body,
                headers=self.headers(target, delivery_id, event, body, event_id),
                allow_redirects=False,
            ) as response:
                status = response.status
                wait = _retry_after(response) if status in ASKS_TO_WAIT else None
                await _finish(response)
        except TimeoutError:
            return Answer("timeout")
        except aiohttp.ClientError as error:
            return Answer(_describe(error))
        if 200 <= status < 300:
            return Answer(None, status)
        return Answer(f"HTTP {status}", status, wait)

    async def close(self):
        """Close every kept connection."""
        await self.trusted.close()
        await self.guarded.close()


async def _finish(response):
    # Keep the connection for the next delivery when the body can be read, else close it.
    length = 0 if response.status in BODILESS else response.content_length
    if length == 0:
        return  # nothing to read: leaving the block gives the connection back
    if length is None or length > KEEP_BODY_LIMIT:
        response.close()
        return
    try:
        # Read within the deadline, so that the connection can carry the next one.
        await response.read()
    except (TimeoutError, aiohttp.ClientError):
        # The status has answered already: a body late or broken costs only the connection.
        response.close()


def _retry_after(response):
    # Seconds, or an HTTP date (RFC 9110); None when absent or unreadable. ASCII digits only:
    # str.isdigit() takes "²", which float() refuses.
    value = response.headers.get("Retry-After", "").strip()
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
    # The reason only: aiohttp's own text may carry the URL, user name and password included.
    reason = getattr(error, "os_error", None) or getattr(error, "strerror", None)
    if isinstance(reason, OSError):
        reason = reason.strerror or type(reason).__name__
    return f"{type(error).__name__}: {reason}" if reason else type(error).__name__
