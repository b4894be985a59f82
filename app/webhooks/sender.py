"""One HTTP attempt of a delivery: its headers, its signatures, and its total deadline."""

import time

import aiohttp

from .signatures import signature, standard_signature

# Largest answer body read to keep the connection for the next delivery; a longer one closes it.
KEEP_BODY_LIMIT = 64 * 1024
# Answers that have no body (RFC 9110): the connection carries the next delivery as it is.
BODILESS = frozenset((204, 304))


class Sender:
    """Posts deliveries on one aiohttp session: connections stay open per receiver, and
    ClientTimeout(total=timeout) ends an attempt at its deadline however the answer trickles."""

    def __init__(self, secret, timeout, connections):
        self.secret = secret.encode()
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=connections),
            timeout=aiohttp.ClientTimeout(total=timeout),
            headers={"User-Agent": "plantstore"},
            # Only the status counts: the answer is never decoded.
            auto_decompress=False,
        )

    def headers(self, delivery_id, event, body):
        """Every header of one attempt, signed at this attempt's time."""
        timestamp = int(time.time())
        return {
            "Content-Type": "application/json",
            "X-Plantstore-Event": event,
            "X-Plantstore-Delivery": delivery_id,
            "X-Plantstore-Signature": signature(self.secret, body),
            "webhook-id": delivery_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": standard_signature(self.secret, delivery_id, timestamp, body),
        }

    async def send(self, url, delivery_id, event, body):
        """Post body to url; None when a 2xx answered, else what went wrong."""
        try:
            async with self.session.post(
                url,
                data=body,
                headers=self.headers(delivery_id, event, body),
                allow_redirects=False,
            ) as response:
                status = response.status
                length = 0 if status in BODILESS else response.content_length
                if length is not None and length <= KEEP_BODY_LIMIT:
                    # Read within the deadline, so that the connection can carry the next one.
                    await response.read()
                else:
                    response.close()
        except TimeoutError:
            return "timeout"
        except aiohttp.ClientError as error:
            return _describe(error)
        return None if 200 <= status < 300 else f"HTTP {status}"

    async def close(self):
        """Close every kept connection."""
        await self.session.close()


def _describe(error):
    # The reason only: aiohttp's own text may carry the URL, user name and password included.
    reason = getattr(error, "os_error", None) or getattr(error, "strerror", None)
    if isinstance(reason, OSError):
        reason = reason.strerror or type(reason).__name__
    return f"{type(error).__name__}: {reason}" if reason else type(error).__name__
