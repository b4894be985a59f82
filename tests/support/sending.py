"""The sender's attempts as the worker makes them, on uvloop's loop as the worker runs, one
after the other, all at once, or one after the other beside others at once, on one Sender,
against receivers on the wire; and the raw answers those receivers give."""

import asyncio
import time

import uvloop

from app.webhooks.tables.records import Endpoint
from app.webhooks.worker.sender import Answer, Sender
from app.webhooks.worker.targets import Target

TIMEOUT = 1
# What a busy machine may add to an attempt that answers at once or ends at its deadline.
MARGIN = 1
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
# The Answer that OK is read as.
OK_READ = Answer(None, 200, body=b"ok")
# Seconds between the attempts of until().
PAUSE = 0.05


def send(url, times=1, guarded=False, allowed=(), nameservers=(), body=b"{}"):
    """[(Answer, seconds)] of times attempts to url, one after the other on one Sender."""
    return uvloop.run(attempts([(url, guarded)] * times, allowed, nameservers, body))


async def attempts(sends, allowed=(), nameservers=(), body=b"{}"):
    """[(Answer, seconds)] of an attempt to each (url, guarded) of sends, in order, on one
    Sender that is closed after them."""
    sender = Sender(TIMEOUT, list(allowed), nameservers)
    timed = []
    try:
        for number, (url, guarded) in enumerate(sends):
            timed.append(await _timed(sender, url, guarded, number, body))
    finally:
        await sender.close()
    return timed


def at_once(urls, nameservers=()):
    """[(Answer, seconds)] of an attempt to each of urls, all begun together on one Sender."""

    async def together():
        sender = Sender(TIMEOUT, [], nameservers)
        try:
            sends = (_timed(sender, url, False, n, b"{}") for n, url in enumerate(urls))
            return await asyncio.gather(*sends)
        finally:
            await sender.close()

    return uvloop.run(together())


def beside(url, times, others):
    """[(Answer, seconds)] of times attempts to url, one after the other on one Sender, and those
    of an attempt to each of others, all begun with the first and run on the same Sender."""

    async def together():
        sender = Sender(TIMEOUT, [])
        try:
            sends = (_timed(sender, other, False, n, b"{}") for n, other in enumerate(others))
            besides = asyncio.gather(*sends)
            timed = [await _timed(sender, url, False, n, b"{}") for n in range(times)]
            return timed, await besides
        finally:
            await sender.close()

    return uvloop.run(together())


def until(url, done, within, nameservers=()):
    """[(Answer, seconds since the first began)] of attempts to url begun PAUSE apart, one after
    the other on one Sender, until done() holds after one or within seconds have passed."""

    async def attempting():
        sender = Sender(TIMEOUT, [], nameservers)
        timed, started = [], time.monotonic()
        try:
            while True:
                began = time.monotonic() - started
                answer, _ = await _timed(sender, url, False, len(timed), b"{}")
                timed.append((answer, began))
                if done() or time.monotonic() - started >= within:
                    return timed
                await asyncio.sleep(PAUSE)
        finally:
            await sender.close()

    return uvloop.run(attempting())


async def _timed(sender, url, guarded, number, body):
    # A guarded one is an endpoint's, as a round reads it: the guard judges its connections.
    settings = {"id": "endpoint", "url": url, "enabled": True, "secret": ""}
    endpoint = Endpoint(**{**dict.fromkeys(Endpoint._fields), **settings})
    target = Target(url, "receiver", (b"k",), endpoint if guarded else None)
    started = time.monotonic()
    answer = await sender.send(target, f"delivery-{number}", "plant.created", body)
    return answer, time.monotonic() - started


def at_deadline(took):
    """Whether an attempt that took this long ended at its deadline: libuv's loop reads its
    clock once a turn, in milliseconds, so a deadline may fire up to 2 ms early by ours."""
    return TIMEOUT - 0.002 <= took < TIMEOUT + MARGIN


def answers(timed):
    """The Answers of send's attempts, each checked to have come well within the deadline."""
    assert all(took < TIMEOUT for _, took in timed), timed
    return [answer for answer, _ in timed]


def connections(receiver):
    """How many connections a ScriptedReceiver's requests came on."""
    return len({connection for connection, _, _ in receiver.requests})
