"""Throttled endpoints: each one's attempts spaced over every worker and host by a schedule in
the database (its throttle_next, advanced in the claim's transaction, which holds its row), and
this worker's reading of the database's clock, which makes a time of that schedule a moment
here. See docs/webhooks.md, "Throttling an endpoint"."""

import datetime
import math
import time

from ..tables.deliveries import queue
from ..tables.endpoints import throttles

# How late an attempt may begin after it is due: due times are (1 + ROOM + 2 * the clock's
# error) / rate seconds apart, so that no window of one second holds more than rate attempts,
# however late each begins within ROOM; the rate loses about 4% to it.
ROOM = 0.04
# An attempt found later than this after it was due (the loop busy, the window full) is given
# back, its attempt not counted: the rest of ROOM is for it to reach the wire.
LATE_MOST = 0.03
# How far ahead a round claims: a new rate paces the next claim, within a second.
HORIZON = 0.5
# How fast two hosts' clocks may drift apart: NTP slews each by 500 ppm at the most.
DRIFT = 0.001


class DatabaseClock:
    """The database's clock as this worker reads it: its offset from time.monotonic(), from the
    reading whose round trip was the shortest, once aged by how far the clocks may have drifted
    since; error, the most that offset may be wrong by."""

    def __init__(self):
        self.offset = None
        self.error = math.inf
        self._read_at = 0.0

    def read(self, db, cursor):
        """Read the database's clock in the cursor's transaction, and keep the reading if it is
        now the best."""
        before = time.monotonic()
        now = throttles.clock(db, cursor).timestamp()
        after = time.monotonic()
        error = (after - before) / 2
        if error <= self.error + DRIFT * (after - self._read_at):
            self.offset, self.error, self._read_at = now - (before + after) / 2, error, after

    def now(self):
        """The database's time now, in seconds since the epoch."""
        return time.monotonic() + self.offset

    def here(self, moment):
        """The time.monotonic() of moment, the database's seconds since the epoch."""
        return moment - self.offset


def claim(db, cursor, wants, rates, until, retries, clock):
    """Claim, in the cursor's transaction, which holds these endpoints' rows for update, up to
    wants[endpoint] due deliveries of each throttled endpoint, rates[endpoint] a second: as many
    as its schedule makes due before HORIZON from now. Each is a Delivery with its due time
    (also its row's next_attempt_at), and the schedule moves past the last one."""
    if not wants:
        return []
    clock.read(db, cursor)
    claimed = []
    for endpoint_id, count in sorted(wants.items()):
        spacing = (1 + ROOM + 2 * clock.error) / rates[endpoint_id]
        now = clock.now()
        scheduled = throttles.next_due(db, cursor, endpoint_id)
        start = max(now, scheduled.timestamp()) if scheduled else now
        fits = min(count, math.ceil((now + HORIZON - start) / spacing))
        taken = queue.claim(db, cursor, {endpoint_id: fits}, until, retries) if fits > 0 else []
        if not taken:
            continue
        dues = [start + index * spacing for index in range(len(taken))]
        queue.schedule(
            db, cursor, [(each.id, _moment(due)) for each, due in zip(taken, dues, strict=True)]
        )
        throttles.advance(db, cursor, endpoint_id, _moment(start + len(taken) * spacing))
        claimed += [
            each._replace(due=clock.here(due)) for each, due in zip(taken, dues, strict=True)
        ]
    return claimed


def _moment(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC)


class DueTimer:
    """Calls callback in the event loop at the earliest due time it was set for."""

    def __init__(self, loop, callback):
        self._loop = loop
        self._callback = callback
        self._handle = None
        self._at = None

    def at(self, due):
        """Call back at due (a time.monotonic()), unless set for an earlier one; None: nothing
        to wait for."""
        if due is None or (self._handle is not None and self._at <= due):
            return
        if self._handle is not None:
            self._handle.cancel()
        self._at = due
        self._handle = self._loop.call_later(max(0.0, due - time.monotonic()), self._fire)

    def _fire(self):
        self._handle = None
        self._callback()
