"""Each receiver's window: the deliveries it holds and may send now, its queue, its turn."""

import collections
import itertools
import math
import time

from ..receivers import receiver_name
from .throttling import LATE_MOST

# Seconds of sending a claim feeds a receiver that answers, at its measured rate: several
# rounds' worth, so that a round slowed by the write lock does not leave it idle.
CLAIM_AHEAD = 0.25


class Window:
    """One receiver's window, by the receiver's key (an operator's URL or an endpoint's id): its
    name for logs, its attempts in flight and how many it may have (size), where its slow start
    ends (threshold), its claimed deliveries waiting for a slot, whether its last attempt was
    answered with a 2xx, its rate of 2xx answers a second, and how many it may hold (depth)."""

    def __init__(self, key, size, threshold):
        self.key = key
        self.name = receiver_name(key)
        self.in_flight = 0
        self.size = size
        self.threshold = threshold
        self.queue = collections.deque()
        self.answering = False
        self.rate = 0.0
        self.depth = size
        # Whether its last claim got all it asked for: more may be due in the outbox.
        self.more = False
        self.answers = 0
        self.since = time.monotonic()

    def measure(self, now):
        """Fold the 2xx answers since the last measure into the rate: at once when it rises,
        by half when it falls, so that one slow round does not shrink the next claim."""
        elapsed = now - self.since
        if elapsed <= 0:
            return
        sample = self.answers / elapsed
        self.rate = sample if sample > self.rate else (self.rate + sample) / 2
        self.answers, self.since = 0, now


class Windows:
    """Every receiver's Window, by key, with the worker's bound on attempts in flight.

    A receiver's window opens as TCP's congestion window does: each 2xx while it has a backlog
    adds a slot below its threshold (slow start: the window doubles every round trip), and
    1/window above it (one slot a round trip), up to RECEIVER_CONCURRENCY_MAX. A failure or a
    timeout puts it back to RECEIVER_CONCURRENCY, as a timeout resets TCP's, and lowers its
    threshold to half the attempts it had in flight: a receiver that hangs or fails holds those
    few slots, and is still tried on its schedule. A receiver that answers holds what it sends
    in CLAIM_AHEAD seconds at its measured rate (and at least two windows), so that claims
    follow its backlog; any other holds no more than its window, so that it never sits on
    deliveries it cannot send.
    """

    def __init__(self, settings):
        self.concurrency = settings.concurrency
        self.base = settings.receiver_concurrency
        self.most = settings.receiver_concurrency_max
        # Claimed deliveries are sent within one timeout of their claim (see Ledger.lease).
        self.ahead = min(CLAIM_AHEAD, settings.timeout / 2)
        self.by_key = {}
        self._resized = {}
        for url in settings.urls:
            self.add(url)
        self.in_flight = 0
        # The earliest due time of a throttled endpoint's delivery that ready() found not yet
        # come.
        self.next_due = None
        self._turn = itertools.count()

    def add(self, key):
        """Deliver to this receiver too (an endpoint, or pending deliveries to a URL no longer
        configured); whether it is new."""
        if key in self.by_key:
            return False
        self.by_key[key] = Window(key, self.base, self.most)
        self._resized[key] = self.base
        return True

    def forget(self, sendable):
        """Drop the windows of receivers no longer in sendable (an endpoint deleted or
        disabled) once nothing of theirs is in flight or queued."""
        for key, window in list(self.by_key.items()):
            if key not in sendable and not window.in_flight and not window.queue:
                del self.by_key[key]
                self._resized[key] = None

    def _in_turn(self):
        # The receiver served first turns round, so that none starves the others.
        windows = list(self.by_key.values())
        turn = next(self._turn) % max(1, len(windows))
        return windows[turn:] + windows[:turn]

    def wants(self, sendable):
        """{receiver: how many more deliveries it may hold now}, for the receivers in sendable,
        leaving out zeros."""
        wants = {}
        now = time.monotonic()
        for window in self._in_turn():
            if window.key not in sendable:
                continue
            window.measure(now)
            window.depth = self._depth(window)
            count = window.depth - window.in_flight - len(window.queue)
            if count > 0:
                wants[window.key] = count
        return wants

    def _depth(self, window):
        if not window.answering:
            return int(window.size)
        return max(2 * int(window.size), math.ceil(window.rate * self.ahead))

    def hold(self, claimed, wants, send_by):
        """Queue claimed Deliveries (claimed for wants) to be sent by send_by
        (time.monotonic()): after that, their lease could end before their attempt does."""
        got = collections.Counter()
        for delivery in claimed:
            self.by_key[delivery.receiver].queue.append((send_by, delivery))
            got[delivery.receiver] += 1
        for key, count in wants.items():
            self.by_key[key].more = got[key] >= count

    def ready(self, expired):
        """Take every queued delivery that a free slot can send now, as (window, delivery);
        those whose time to be sent has passed go to expired, as do a throttled endpoint's
        that missed their due time by more than LATE_MOST. Sets next_due."""
        now = time.monotonic()
        self.next_due = None
        for window in self._in_turn():
            queue = window.queue
            while queue and self.in_flight < self.concurrency:
                if window.in_flight >= int(window.size):
                    break
                send_by, delivery = queue[0]
                due = delivery.due
                if due is not None and due > now:
                    self.next_due = min(due, self.next_due or due)
                    break
                queue.popleft()
                if now > send_by or (due is not None and now > due + LATE_MOST):
                    expired.append(delivery)
                    continue
                window.in_flight += 1
                self.in_flight += 1
                yield window, delivery

    def done(self, window, answered):
        """An attempt through window ended; answered: with a 2xx. Its size follows; whether it
        runs low on claimed deliveries while more are due, and so wants a claim now."""
        flight, before = window.in_flight, int(window.size)
        window.in_flight -= 1
        self.in_flight -= 1
        window.answering = answered
        if not answered:
            window.threshold = max(self.base, flight // 2)
            self._resize(window, self.base, before)
            return False
        window.answers += 1
        # One whose next delivery is not due yet (a throttled endpoint's) is held back by
        # its rate, not by its size: it does not grow, as TCP's window does not while the
        # application sends less than it allows (RFC 7661).
        if window.queue and window.size < self.most and not _waits(window.queue, time.monotonic()):
            step = 1 if window.size < window.threshold else 1 / window.size
            self._resize(window, min(self.most, window.size + step), before)
        return window.more and len(window.queue) < window.depth // 2

    def _resize(self, window, size, before):
        window.size = size
        if int(size) != before:
            self._resized[window.key] = int(size)

    def sizes(self):
        """{receiver: its window, whole slots}."""
        return {key: int(window.size) for key, window in self.by_key.items()}

    def resized(self):
        """{receiver: its window, whole slots, or None when it went} of the windows added,
        resized or gone since the last call: what /metrics has still to be told."""
        resized, self._resized = self._resized, {}
        return resized

    def drain(self):
        """Empty every queue; the Deliveries that were in them."""
        deliveries = [delivery for r in self.by_key.values() for _, delivery in r.queue]
        for window in self.by_key.values():
            window.queue.clear()
        return deliveries


def _waits(queue, now):
    # Whether the first of a window's queued deliveries is not due yet.
    due = queue[0][1].due
    return due is not None and due > now
