"""The sender's Connections reading answers off real sockets, for the differential judge: a
receiver on the far end of a Unix socket pair writes each piece of an answer and waits until
the Connection has read it (or closed) before the next, so that every cut is a read of its own;
each attempt's Outcome, as the sender sees it, is taken from its future and its pool."""

import asyncio
import socket

from app.webhooks.worker.connections import BadAnswer, Connection, Disconnected
from app.webhooks.worker.pools import Pool
from support.differential_answers import LIMIT
from support.differential_contract import Outcome

REQUEST = b"POST /hook HTTP/1.1\r\nHost: receiver\r\nContent-Length: 2\r\n\r\n{}"
# What the contract has an attempt fail with past its limits (docs/webhooks.md, issue 57).
HEAD_OVER = f"ClientResponseError: the answer's head is over {LIMIT} bytes"
TOO_MANY_INTERIM = "ClientResponseError: more than 5 interim answers"
# Seconds a read or a close may take to reach the Connection on a busy machine.
WAIT = 10


class Watched(Connection):
    """A Connection that counts the bytes it is given and says when it was given some, or
    lost its connection."""

    def __init__(self, pool):
        super().__init__(pool)
        self.received = 0
        self.moved = asyncio.Event()

    def data_received(self, data):
        """asyncio: bytes, counted, then read as the Connection reads them."""
        self.received += len(data)
        super().data_received(data)
        self.moved.set()

    def connection_lost(self, exc):
        """asyncio: closed, by either side."""
        super().connection_lost(exc)
        self.moved.set()


async def connection_reads(answers):
    """[Outcome] of each of answers, sent in turn to the worker's request on a connection of
    one Pool: a new one, or the one the last answer left in the pool."""
    loop = asyncio.get_running_loop()
    pool, peers, outcomes = Pool(loop), {}, []
    try:
        for answer in answers:
            connection = pool.take()
            if connection is None:
                ours, peer = socket.socketpair()
                peer.setblocking(False)
                _, connection = await loop.create_connection(lambda: Watched(pool), sock=ours)
                peers[connection] = peer
            outcomes.append(await _attempt(connection, peers[connection], answer))
    finally:
        pool.close()
        for peer in peers.values():
            peer.close()
    return outcomes


async def _attempt(connection, peer, answer):
    loop = asyncio.get_running_loop()
    future = connection.exchange(REQUEST, loop.time() + 2 * WAIT)
    request = b""
    while len(request) < len(REQUEST):  # read, so that closing the peer sends no reset
        request += await asyncio.wait_for(loop.sock_recv(peer, len(REQUEST)), WAIT)
    read = connection.received
    for piece in answer.pieces():
        try:
            await loop.sock_sendall(peer, piece)
        except (BrokenPipeError, ConnectionResetError):
            break  # closed as it read: the rest is never read
        read += len(piece)
        await _until(connection, lambda read=read: connection.received >= read)
    if answer.closes or not future.done():
        peer.close()
        await _until(connection, lambda: False)  # until the Connection has seen the close
    kept = connection in connection.pool.idle and connection.transport is not None
    return Outcome(*await _answer(future), kept)


async def _until(connection, condition):
    # Until condition holds or the Connection is closed, bounded.
    async with asyncio.timeout(WAIT):
        while not condition() and connection.transport is not None:
            connection.moved.clear()
            await connection.moved.wait()


async def _answer(future):
    try:
        status, retry_after, kept = await future
    except BadAnswer as error:
        return {
            HEAD_OVER: ("head over limit", True),
            TOO_MANY_INTERIM: ("too many interim", False),
        }.get(str(error), ("refused", False))
    except Disconnected:
        return "disconnected", False
    text = None if retry_after is None else retry_after.decode("utf-8", "surrogateescape").strip()
    return (status, text, kept), False
