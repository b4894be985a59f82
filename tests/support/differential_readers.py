"""What two well-kept HTTP clients read of one answer's bytes, for the sender's differential
judge: aiohttp's response parser (the C one, as aiohttp's client runs it) says where each part of
the answer ends, its status and Retry-After, its body and whether it keeps its connection; h11
says whether it would send the next request on that connection."""

import asyncio
import dataclasses

import h11
from aiohttp.base_protocol import BaseProtocol
from aiohttp.client_exceptions import ClientPayloadError
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.http_parser import HttpResponseParser

from support.differential_answers import KEPT, LIMIT

# Past aiohttp's line, field and header-count limits and h11's event size: only the contract's.
UNLIMITED = 2**24
# How far aiohttp buffers a body before it pauses reading: flow control, no part of the reading.
BUFFER = 2**24


@dataclasses.dataclass
class Reading:
    """Where the parts of an answer end as aiohttp reads its bytes (offsets just past them):
    each interim answer, the final answer's head, the final answer, the read the parser refused;
    and the final answer's status, Retry-After, HTTP version, whether it keeps its connection,
    how many bytes its body has once decoded (at its end), and of the body read however far
    the parser went, how many bytes and the first KEPT."""

    interims: list = dataclasses.field(default_factory=list)
    head: int | None = None
    end: int | None = None
    refused: int | None = None
    status: int | None = None
    retry_after: str | None = None
    http10: bool = False
    keeps: bool = False
    body: int = 0
    received: int = 0
    kept: bytes = b""


def aiohttp_reads(data):
    """The Reading of data by aiohttp's response parser, configured as its client configures
    it (lenient, reading a body without framing until the connection closes, limits raised)."""
    loop = asyncio.new_event_loop()
    try:
        parser = HttpResponseParser(
            BaseProtocol(loop),
            loop,
            BUFFER,
            payload_exception=ClientPayloadError,
            read_until_eof=True,
            max_line_size=UNLIMITED,
            max_field_size=UNLIMITED,
            max_headers=UNLIMITED,
        )
        return _read(parser, data)
    finally:
        loop.close()


def _read(parser, data):
    # Fed a line at a time, cut at the head limit and where a body with a length ends, so that
    # each part's end, and a refusal's side of the limit, are known to the byte; the parser stops
    # at the final answer's end (what follows is a stray) or at a refusal.
    reading, payload, at, marks = Reading(), None, 0, {LIMIT}
    while at < len(data) and reading.end is None:
        stop = _stop(data, at, marks)
        try:
            messages = parser.feed_data(data[at:stop])[0]
        except HttpProcessingError:
            reading.refused = stop
            break
        at = stop
        for message, body in messages:
            if 100 <= message.code < 200:
                reading.interims.append(stop)
            elif reading.head is None:
                payload = body
                _final(reading, message, stop, marks)
        if payload is not None and payload.is_eof():
            reading.end, reading.body = stop, getattr(payload, "total_bytes", 0)
    # What the payload holds, unread: an answer without a body has an empty one, unbuffered.
    received = b"".join(getattr(payload, "_buffer", ()))
    reading.received, reading.kept = len(received), received[:KEPT]
    return reading


def _final(reading, message, stop, marks):
    reading.head, reading.status = stop, message.code
    reading.retry_after = message.headers.get("Retry-After")
    reading.http10 = message.version < (1, 1)
    reading.keeps = not message.should_close
    length = message.headers.get("Content-Length")
    if length is not None and not message.chunked:
        marks.add(stop + int(length))


def _stop(data, at, marks):
    line = data.find(b"\n", at)
    stops = [mark for mark in marks if mark > at]
    return min([*stops, line + 1 if line >= 0 else len(data), len(data)])


def h11_keeps(data, closes):
    """Whether h11, as the client of the worker's request, would send the next request on this
    connection (the answer whole, kept alive, nothing after it, the connection open); None when
    h11 refuses the bytes or has not read the answer whole."""
    client = h11.Connection(h11.CLIENT, max_incomplete_event_size=UNLIMITED)
    headers = [("Host", "receiver"), ("Content-Length", "2")]
    client.send(h11.Request(method="POST", target="/hook", headers=headers))
    client.send(h11.Data(data=b"{}"))
    client.send(h11.EndOfMessage())
    client.receive_data(data)
    try:
        while client.next_event() not in (h11.NEED_DATA, h11.PAUSED):
            pass
    except h11.RemoteProtocolError:
        return None
    if client.their_state not in (h11.DONE, h11.MUST_CLOSE):
        return None  # h11 waits for a CRLF where llhttp takes a bare LF, as in chunk lines
    return client.their_state is h11.DONE and not client.trailing_data[0] and not closes
