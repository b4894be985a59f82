"""Throttled endpoints: each one's attempts spaced over every worker and host by a schedule in
the database (its throttle_next, a GCRA's theoretical arrival time, advanced in the claim's
transaction, which holds its row), read with the database's clock by the same statement, which
makes each due time a moment here. See docs/webhooks.md, "Throttling an endpoint"."""

import datetime
import math
import time

from ..tables.deliveries import queue
from ..tables.endpoints import throttles

# How late an attempt may begin after it is due: due times are (1 + ROOM + 2 * the reading's
# error) / rate seconds apart, so that no window of one second holds more than rate attempts,
# however late each begins within ROOM; the rate loses about 4% to it.
ROOM = 0.04
# An attempt found later than this after it was due (the loop busy, the window full) is given
# back, its attempt not counted: the rest of ROOM is for it to reach the wire.
LATE_MOST = 0.03
# How far ahead a round claims: a new rate paces the next claim, within a second.
HORIZON = 0.5
# The latest that an attempt claimed before a step of the database's clock may still begin.
LEAD = HORIZON + LATE_MOST
# How fast the database's clock and this host's monotonic one may drift apart (NTP slews by
# 500 ppm at the most), and the least jump between two readings taken for a step.
DRIFT, STEP_LEAST = 0.001, 0.02


class Steps:
    """Notices a step of the database's clock (an NTP step, a failover to another server) by
    its readings against time.monotonic(): after a step forward, each endpoint's next claim
    starts past what was claimed before it, whose due times the step moved into the past."""

    def __init__(self):
        self.offset = None
        self.error = 0.0
        self.read_at = 0.0
        self.shift = 0.0
        self.until = 0.0
        self.shifted = set()

    def read(self, now, here, error):
        """Take a reading: now, the database's seconds since the epoch, read at here (a
        time.monotonic()) within error seconds."""
        offset = now - here
        if self.offset is not None:
            jump = offset - self.offset
            if jump > error + self.error + DRIFT * (here - self.read_at) + STEP_LEAST:
                self.shift, self.until, self.shifted = min(jump, LEAD), here + LEAD, set()
        self.offset, self.error, self.read_at = offset, error, here

    def owed(self, endpoint_id, here):
        """The seconds the endpoint's schedule moves forward at this claim: once per endpoint
        after a step forward, while attempts claimed before it may still begin."""
        if here >= self.until or endpoint_id in self.shifted:
            return 0.0
        self.shifted.add(endpoint_id)
        return self.shift


def claim(cursor, wants, rates, until, retries, steps):
    """Claim, in the cursor's transaction, which holds these endpoints' rows for update, up to
    wants[endpoint] due deliveries of each throttled endpoint, rates[endpoint] a second: as many
    as its schedule makes due before HORIZON from now. Each is a Delivery with its due time
    (also its row's next_attempt_at), and the schedule moves past the last one."""
    claimed = []
    for endpoint_id, count in sorted(wants.items()):
        before = time.monotonic()
        read = throttles.next_due(cursor, endpoint_id)
        after = time.monotonic()
        if read is None:
            continue
        here, error = (before + after) / 2, (after - before) / 2
        now = read[1].timestamp()
        steps.read(now, here, error)
        spacing = (1 + ROOM + 2 * error) / rates[endpoint_id]
        start, moved = _start(read[0], now, spacing)
        shift = steps.owed(endpoint_id, here)
        start, moved = start + shift, moved or shift > 0
        fits = min(count, math.ceil((now + HORIZON - start) / spacing))
        taken = queue.claim(cursor, {endpoint_id: fits}, until, retries) if fits > 0 else []
        dues = [start + index * spacing for index in range(len(taken))]
        if taken:
            queue.schedule(
                cursor, [(each.id, _moment(due)) for each, due in zip(taken, dues, strict=True)]
            )
        # Past what it took; or only clamped or shifted, which must hold for the next claim.
        if taken or moved:
            throttles.advance(cursor, endpoint_id, _moment(start + len(taken) * spacing))
        claimed += [
            each._replace(due=here + due - now) for each, due in zip(taken, dues, strict=True)
        ]
    return claimed


def _start(scheduled, now, spacing):
    # GCRA's clamp: never before now (a schedule left behind, or a step forward, bursts
    # nothing), and never later than a claim made now could have put it (a step back of the
    # database's clock starves nobody): past what one claimed before it may still begin. The
    # start, and whether it was clamped back.
    if scheduled is None:
        return now, False
    reach = now + LEAD + spacing
    return max(now, min(scheduled.timestamp(), reach)), scheduled.timestamp() > reach


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
