"""Each receiver's window: the deliveries it holds and may send now, its queue, its turn."""

import collections
import itertools
import time

from ..receivers import receiver_name


class Window:
    """One receiver's window, by the receiver's key (an operator's URL or an endpoint's id): its
    name for logs, its attempts in flight and how many it may have (size), its claimed
    deliveries waiting for a slot, and whether its last attempt was answered with a 2xx."""

    def __init__(self, key, size):
        self.key = key
        self.name = receiver_name(key)
        self.in_flight = 0
        self.size = size
        self.queue = collections.deque()
        self.answering = False


class Windows:
    """Every receiver's Window, by key, with the worker's bound on attempts in flight.

    A receiver's window follows it as TCP's congestion window does: each 2xx while it has a
    backlog adds 1/window (one slot per window of answers, up to RECEIVER_CONCURRENCY_MAX), so a
    receiver far away gets the attempts in flight its distance needs; a failure or a timeout
    puts it back to RECEIVER_CONCURRENCY, as a timeout resets TCP's, so a receiver that hangs or
    fails holds those few slots, and is still tried on its schedule. A receiver that answers
    holds up to ``claim_batch`` claimed deliveries, so that one claim feeds its slots for a
    while; any other holds no more than its window, so that it never sits on deliveries it
    cannot send.
    """

    def __init__(self, config):
        self.concurrency = config["WEBHOOK_CONCURRENCY"]
        self.base = config["WEBHOOK_RECEIVER_CONCURRENCY"]
        self.most = config["WEBHOOK_RECEIVER_CONCURRENCY_MAX"]
        self.claim_batch = max(config["WEBHOOK_CLAIM_BATCH"], self.most)
        self.by_key = {url: Window(url, self.base) for url in config["WEBHOOK_URLS"]}
        self.in_flight = 0
        self._turn = itertools.count()

    def add(self, key):
        """Deliver to this receiver too (an endpoint, or pending deliveries to a URL no longer
        configured); whether it is new."""
        if key in self.by_key:
            return False
        self.by_key[key] = Window(key, self.base)
        return True

    def _in_turn(self):
        # The receiver served first turns round, so that none starves the others.
        windows = list(self.by_key.values())
        turn = next(self._turn) % max(1, len(windows))
        return windows[turn:] + windows[:turn]

    def wants(self, sendable):
        """{receiver: how many more deliveries it may hold now}, for the receivers in sendable,
        leaving out zeros."""
        wants = {}
        for window in self._in_turn():
            if window.key not in sendable:
                continue
            depth = self.claim_batch if window.answering else int(window.size)
            count = depth - window.in_flight - len(window.queue)
            if count > 0:
                wants[window.key] = count
        return wants

    def hold(self, claimed, send_by):
        """Queue claimed Deliveries to be sent by send_by (time.monotonic()): after that, their
        lease could end before their attempt does."""
        for delivery in claimed:
            self.by_key[delivery.receiver].queue.append((send_by, delivery))

    def ready(self, expired):
        """Take every queued delivery that a free slot can send now, as (window, delivery);
        the ids of those whose time to be sent has passed go to expired."""
        now = time.monotonic()
        for window in self._in_turn():
            queue = window.queue
            while queue and self.in_flight < self.concurrency:
                if window.in_flight >= int(window.size):
                    break
                send_by, delivery = queue.popleft()
                if now > send_by:
                    expired.append(delivery.id)
                    continue
                window.in_flight += 1
                self.in_flight += 1
                yield window, delivery

    def done(self, window, answered):
        """An attempt through window ended; answered: with a 2xx. Its size follows."""
        window.in_flight -= 1
        self.in_flight -= 1
        window.answering = answered
        if not answered:
            window.size = self.base
        elif window.queue and window.size < self.most:
            window.size = min(self.most, window.size + 1 / window.size)

    def drain(self):
        """Empty every queue; the ids of the deliveries that were in them."""
        ids = [delivery.id for r in self.by_key.values() for _, delivery in r.queue]
        for window in self.by_key.values():
            window.queue.clear()
        return ids
