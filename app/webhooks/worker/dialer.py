"""New connections to receivers: their host's addresses (resolver.py), each judged by the guard
as it is tried when the receiver is an endpoint, tried in the order and at the pace of RFC 8305
(Happy Eyeballs, as aiohttp connects): the next address begins when one fails, or 0.25 s after
the one before began, and the first to connect wins. Two attempts of a family are in flight at
most: the oldest is given up for the next, as curl gives up its oldest past six in all.

Each address is connected to as an IP literal, which neither asyncio's loop nor uvloop's looks
up again: uvloop's sock_connect would, in libuv's few threads, where a hung lookup waits too."""

import asyncio
import errno
import itertools

from ..security import guard

# Seconds before the next of a name's addresses is tried beside the first (RFC 8305, aiohttp's).
HAPPY_EYEBALLS_DELAY = 0.25
# Attempts of a family in flight at most: one given up has had 0.5 s, past a round trip across
# the world by cable (one would allow 0.25 s), and names with two a family or fewer go as before.
IN_FLIGHT_PER_FAMILY = 2


class NotPublic(OSError):
    """A guarded receiver's connection would reach an address the guard refuses."""


class Dialer:
    """Opens connections for the Sender: through resolver, guarded by allowed (ip_networks)."""

    def __init__(self, resolver, allowed):
        self.resolver = resolver
        self.allowed = allowed

    async def connect(self, factory, host, port, tls, guarded):
        """The protocol factory() made for the first of host's addresses to connect (over tls,
        an SSLContext, when not None); the error of every address when none does."""
        addresses = _interleaved(await self.resolver.addresses(host))
        # A trailing dot names the same host; certificates never hold it.
        server_hostname = host.rstrip(".") if tls else None
        loop = asyncio.get_running_loop()

        async def open_one(family, address):
            why = refusal(address, self.allowed) if guarded else None
            if why:
                raise NotPublic(errno.EACCES, why)
            _, protocol = await loop.create_connection(
                factory, address, port, family=family, ssl=tls, server_hostname=server_hostname
            )
            return protocol

        return await _first(loop, [(open_one, *each) for each in addresses])


def refusal(address, allowed):
    """Why a guarded connection may not reach address, or None when it may."""
    try:
        return guard.refusal(address, allowed)
    except ValueError:  # not an address at all: nothing to connect to
        return f"{address} is not an address"


def _interleaved(addresses):
    # One of each family in turn, the resolver's first family first (RFC 8305, section 4).
    by_family = {}
    for address in addresses:
        by_family.setdefault(address[0], []).append(address)
    mixed = itertools.chain.from_iterable(itertools.zip_longest(*by_family.values()))
    return [address for address in mixed if address is not None]


async def _first(loop, starts):
    """The result of the first of starts, (coroutine function, family, address), to return; each
    starts when one before fails or HAPPY_EYEBALLS_DELAY after the one before started, the oldest
    of its family given up when IN_FLIGHT_PER_FAMILY of them are in flight. The others are
    cancelled, and closed should they connect all the same."""
    running, errors = {}, []  # each attempt in flight: its family, the oldest first
    waiting = list(starts)
    try:
        while waiting or running:
            if waiting:
                function, family, address = waiting.pop(0)
                _make_room(running, family)
                running[loop.create_task(function(family, address))] = family
            done, _ = await asyncio.wait(
                running,
                timeout=HAPPY_EYEBALLS_DELAY if waiting else None,
                return_when=asyncio.FIRST_COMPLETED,
            )
            for task in done:
                del running[task]
            won = [task for task in done if task.exception() is None]
            for task in won[1:]:
                _close(task)
            if won:
                return won[0].result()
            errors += [task.exception() for task in done]
    finally:
        for task in running:
            _give_up(task)
    raise _one_error(errors)


def _make_room(running, family):
    # The oldest of family's attempts given up when it has as many in flight as it may.
    same = [task for task, each in running.items() if each == family]
    if len(same) >= IN_FLIGHT_PER_FAMILY:
        del running[same[0]]
        _give_up(same[0])


def _give_up(task):
    task.cancel()
    task.add_done_callback(_close)


def _close(task):
    if not task.cancelled() and task.exception() is None:
        task.result().close()


def _one_error(errors):
    # The error of each address, as aiohappyeyeballs raises them: alone, or named together; a
    # bug's own, first.
    unexpected = [error for error in errors if not isinstance(error, OSError)]
    if unexpected or len({str(error) for error in errors}) == 1:
        return (unexpected or errors)[0]
    return OSError(errors[0].errno, f"Multiple exceptions: {', '.join(map(str, errors))}")
