"""The sender's reading of answers held to two well-kept implementations: answers that hypothesis
generates (framing forms, lenient forms, interim answers, strays, the receiver closing), split at
random byte boundaries, several on one connection, are read by the sender's Connection as
aiohttp's response parser reads them (the status and Retry-After, or a refusal), and the
connection is kept for the next request exactly when h11 would keep it.

The Connection is driven in process, on a real socket pair, its bytes given to it piece by piece
as the loop would; PLANTSTORE_DIFFERENTIAL_EXAMPLES sets how many runs hypothesis makes
(default 300)."""

import asyncio
import os
import socket

import h11
import uvloop
from aiohttp.base_protocol import BaseProtocol
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.http_parser import HttpResponseParser
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.webhooks.worker.connections import BadAnswer, Connection, Disconnected
from app.webhooks.worker.pools import Pool

EXAMPLES = int(os.environ.get("PLANTSTORE_DIFFERENTIAL_EXAMPLES", "300"))
REQUEST = b"POST /hook HTTP/1.1\r\nHost: receiver\r\nContent-Length: 2\r\n\r\n{}"
# Header lines as receivers send them, well formed, lenient (aiohttp accepts) or refused.
HEADERS = [
    b"Server: receiver",
    b"X-Note:",
    b"X-Note: a\tb",
    b"X-Note: a\x01b",
    b"X-Note: caf\xc3\xa9",
    b"Retry-After: 5",
    b"Retry-After:  7 ",
    b"Retry-After: Wed, 21 Oct 2015 07:28:00 GMT",
    b"X-Note : spaced",
    b"Content-Length: x",
    b"X-Folded: a{end} b",
]
STATUSES = [200, 201, 204, 301, 304, 400, 404, 410, 429, 500, 503]
STRAYS = [
    b"",
    b"HTTP/1.1 200 OK{end}X-Stray: ",
    b"HTTP/1.1 204 No Content{end}{end}",
    b"{end}",
    b"\x00junk",
]


def _lines(lines, end):
    return b"".join(line.replace(b"{end}", end) + end for line in lines)


@st.composite
def bodies(draw):
    """(headers, bytes) of a body framed one way or another. Chunks end in CRLF: llhttp reads a
    bare LF there its own way (aiohttp's parser refuses most of it, h11 takes it)."""
    body = draw(st.binary(max_size=40))
    framing = draw(st.sampled_from(["length", "chunked", "none", "length and chunked", "short"]))
    if framing in ("length", "short"):
        sent = body[: len(body) // 2] if framing == "short" else body
        return [b"Content-Length: %d" % len(body)], sent
    if framing == "none":
        return [], body
    cuts = sorted(draw(st.lists(st.integers(0, len(body)), max_size=3)))
    chunks = b""
    for start, stop in zip([0, *cuts], [*cuts, len(body)], strict=True):
        if stop > start:
            size = draw(st.sampled_from([b"%x", b"%X", b"%x;ext=1", b"%x  "])) % (stop - start)
            chunks += size + b"\r\n" + body[start:stop] + b"\r\n"
    trailers = draw(st.lists(st.sampled_from([b"X-Trailer: t", b"Retry-After: 3000"]), max_size=2))
    headers = [b"Transfer-Encoding: chunked"]
    if framing == "length and chunked":
        headers.append(b"Content-Length: %d" % len(body))
    return headers, chunks + b"0\r\n" + _lines(trailers, b"\r\n") + b"\r\n"


@st.composite
def answers(draw):
    """(bytes, closes): an answer as a receiver sends it, with what may follow it, and whether
    the receiver then closes the connection."""
    end = draw(st.sampled_from([b"\r\n", b"\n"]))
    interim = draw(st.lists(st.sampled_from([b"100 Continue", b"103 Early Hints"]), max_size=2))
    sent = b"".join(b"HTTP/1.1 " + line + end + end for line in interim)
    version = draw(st.sampled_from([b"HTTP/1.1", b"HTTP/1.0"]))
    reason = draw(st.sampled_from([b" Reason", b" ", b""]))
    sent += version + b" %d" % draw(st.sampled_from(STATUSES)) + reason + end
    framing, body = draw(bodies())
    connection = draw(st.sampled_from([[], [b"Connection: close"], [b"Connection: keep-alive"]]))
    headers = draw(st.lists(st.sampled_from(HEADERS), max_size=3)) + framing + connection
    sent += _lines(draw(st.permutations(headers)), end) + end + body
    sent += draw(st.sampled_from(STRAYS)).replace(b"{end}", end)
    return sent, draw(st.booleans())


@st.composite
def split(draw, data):
    """data in pieces, cut at random byte boundaries."""
    cuts = sorted(set(draw(st.lists(st.integers(1, max(1, len(data) - 1)), max_size=5))))
    return [data[start:stop] for start, stop in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def aiohttp_reads(data, closes):
    """What aiohttp's response parser (the C one, lenient as its client runs it) reads of data:
    the final answer's (status, Retry-After) as soon as its head is in, "refused", or
    "disconnected" when the receiver closed before it."""
    loop = asyncio.new_event_loop()
    try:
        parser = HttpResponseParser(BaseProtocol(loop), loop, 2**16, read_until_eof=True)
        try:
            for at in range(len(data)):  # a byte at a time: the status counts once it is in
                for message, _ in parser.feed_data(data[at : at + 1])[0]:
                    if message.code >= 200:
                        return message.code, message.headers.get("Retry-After")
            if closes:
                parser.feed_eof()
        except HttpProcessingError:
            return "refused"
        return "disconnected"
    finally:
        loop.close()


def h11_keeps(data, closes):
    """Whether h11, as the client of REQUEST, would send the next request on this connection:
    the answer whole, kept alive, nothing after it, the connection open."""
    client = h11.Connection(h11.CLIENT)
    client.send(
        h11.Request(method="POST", target="/hook", headers=[("Host", "r"), ("Content-Length", "2")])
    )
    client.send(h11.Data(data=b"{}"))
    client.send(h11.EndOfMessage())
    client.receive_data(data)
    try:
        while client.next_event() not in (h11.NEED_DATA, h11.PAUSED):
            pass
    except h11.RemoteProtocolError:
        return None  # h11 reads it no further: aiohttp's reading alone is the reference
    states = (client.our_state, client.their_state)
    return states == (h11.DONE, h11.DONE) and not client.trailing_data[0] and not closes


async def connection_reads(answers):
    """[(outcome, kept)] of each of answers, (pieces, closes), given in turn to Connections as
    their bytes: a connection given back to its pool carries the next one."""
    loop = asyncio.get_running_loop()
    pool, peers, read = Pool(loop), {}, []
    for pieces, closes in answers:
        connection = pool.take()
        if connection is None:
            ours, peer = socket.socketpair()
            _, connection = await loop.create_connection(lambda: Connection(pool), sock=ours)
            peers[connection] = peer
        answer = connection.exchange(REQUEST, loop.time() + 10)
        for piece in pieces:
            if connection.transport is not None:  # closed as it read: the rest is never read
                connection.data_received(piece)
        if closes or not answer.done():
            peers[connection].close()
            await _until(lambda closed=connection: closed.transport is None)
        kept = connection in pool.idle and connection.transport is not None
        read.append((await _outcome(answer), kept))
    pool.close()
    for peer in peers.values():
        peer.close()
    return read


async def _until(condition):
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the connection never saw the receiver close it")


async def _outcome(answer):
    try:
        status, retry_after = await answer
    except BadAnswer:
        return "refused"
    except Disconnected:
        return "disconnected"
    return status, retry_after.decode("utf-8", "surrogateescape").strip() if retry_after else None


@st.composite
def connections(draw):
    """Several answers, each with its pieces and whether the receiver closes after it."""
    made = draw(st.lists(answers(), min_size=1, max_size=4))
    return [(data, draw(split(data)), closes) for data, closes in made]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(connections())
def test_answers_are_read_as_aiohttp_reads_them_and_kept_as_h11_keeps_them(made):
    read = uvloop.run(connection_reads([(pieces, closes) for _, pieces, closes in made]))
    for (data, _, closes), (outcome, kept) in zip(made, read, strict=True):
        expected = aiohttp_reads(data, closes)
        if isinstance(expected, tuple) and expected[1] is not None:
            expected = (expected[0], expected[1].strip())
        assert outcome == expected, data
        keeps = h11_keeps(data, closes)
        if keeps is not None and outcome not in ("refused", "disconnected"):
            assert kept == keeps, data
