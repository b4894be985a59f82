"""The sender's attempts as the worker makes them, one after the other on one Sender, against
receivers on the wire; and the raw answers those receivers give."""

import asyncio
import time

from app.webhooks.worker.sender import Sender
from app.webhooks.worker.targets import Target

TIMEOUT = 1
# What a busy machine may add to an attempt that answers at once or ends at its deadline.
MARGIN = 1
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def send(url, times=1, guarded=False, allowed=()):
    """[(Answer, seconds)] of times attempts to url, one after the other on one Sender."""
    return asyncio.run(attempts([(url, guarded)] * times, allowed))


async def attempts(sends, allowed=()):
    """[(Answer, seconds)] of an attempt to each (url, guarded) of sends, in order, on one
    Sender that is closed after them."""
    sender = Sender(TIMEOUT, list(allowed))
    timed = []
    try:
        for number, (url, guarded) in enumerate(sends):
            target = Target(url, "receiver", (b"k",), guarded)
            started = time.monotonic()
            answer = await sender.send(target, f"delivery-{number}", "plant.created", b"{}")
            timed.append((answer, time.monotonic() - started))
    finally:
        await sender.close()
    return timed


def answers(timed):
    """The Answers of send's attempts, each checked to have come well within the deadline."""
    assert all(took < TIMEOUT for _, took in timed), timed
    return [answer for answer, _ in timed]


def connections(receiver):
    """How many connections a ScriptedReceiver's requests came on."""
    return len({connection for connection, _, _ in receiver.requests})
