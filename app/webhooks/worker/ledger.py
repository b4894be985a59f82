"""The worker's side of the database: each round's one transaction, and the transaction that
settles a stop. Its methods run in the worker's database thread: what a round needs is handed
in, and what it decided is handed back (a Round), never an object the loop's thread changes."""

import collections
import time
import uuid
from typing import NamedTuple

from ... import database, events
from .. import settings
from ..receivers import is_endpoint
from ..tables import window_sizes
from ..tables.deliveries import endpoint_log, outbox, queue
from ..tables.endpoints import rounds, timelines
from . import disabling, fanout, throttling
from .retries import Retries
from .targets import Reader, Targets

# Seconds a lease allows beyond the attempt and its recording: the rest of the round after the
# database's clock is read for it, and the loop's turn to start the attempt.
LEASE_MARGIN = 5
# Events one round fans out at most: a bounded transaction, so creates get the write lock soon.
FANOUT_BATCH = 500
# Seconds between two writes of the windows for /metrics, and how long /metrics believes one.
WINDOWS_INTERVAL, WINDOWS_LIFE = 0.5, 5
# Seconds between two prunings of the endpoints' timelines (timelines.prune) and of the
# windows of workers gone (window_sizes.forget_gone).
PRUNE_INTERVAL = 60


class Round(NamedTuple):
    """What one round decided: the Deliveries it claimed, and every receiver's Targets as it
    read them."""

    claimed: list
    targets: Targets


class Ledger:
    """Reads the endpoints, records outcomes (and the endpoints they disable), gives back what
    was not sent, claims, and fans events out, writing claimed what the windows still want;
    writes the windows for /metrics: the write lock once per round."""

    def __init__(self, app):
        values = settings.of(app)
        self.db = database.of(app)
        self.logger = app.logger
        self.urls = values.urls
        self.disable_after = values.disable_after
        self.retries = Retries(values)
        self.reader = Reader(values, app.logger)
        # The receivers as the last round read them, for tidy; the operator's before any round.
        self.targets = self.reader.operator()
        self.operator_types = {
            name for name, event_type in events.types(app).items() if event_type.operator
        }
        # A claimed delivery waits at most one timeout for a slot, its attempt ends by its
        # deadline and is recorded within the database timeout: no other worker can claim it
        # while it is being sent.
        self.lease = 2 * values.timeout + app.config["DATABASE_TIMEOUT"] + LEASE_MARGIN
        self.event_retention = events.retention.Retention(app)
        self.worker = uuid.uuid4().hex
        self.steps = throttling.Steps()
        self.timelines = timelines.Kept()
        # The windows' sizes changed since the last write ({receiver: size, or None when it
        # went}), and those a round's write holds until its commit.
        self._unwritten, self._writing = {}, {}
        self._windows_due = self._prune_due = 0.0

    def round(self, outcomes, unsent, wants, sizes, kept=()):
        """One round's transaction, steps 2, 3 and 5 of a delivery's life (see the package's
        docstring): the Round, with the Deliveries claimed (up to wants[receiver] each) and the
        Targets read, with kept, operator's URLs no longer configured that are still sent to.
        sizes, the windows resized since the last round ({receiver: size, or None for one
        gone}), are written for /metrics with those of the rounds before, every
        WINDOWS_INTERVAL. Nothing given is changed."""
        self._unwritten.update(sizes)
        try:
            with self.db.transaction() as cursor:
                done = self._round(cursor, outcomes, unsent, wants, kept)
        except BaseException:
            # Rolled back: what it wrote of the windows is still to be written.
            self._unwritten = {**self._writing, **self._unwritten}
            raise
        finally:
            self._writing = {}
        return done

    def _round(self, cursor, outcomes, unsent, wants, kept):
        # Read first, no row locked: who has work, a pending delivery or a waiting event
        # it may take, so that the round locks and asks those alone.
        rows = fanout.waiting(self.db, cursor, FANOUT_BATCH)
        by_type = self.timelines.current(cursor) if rows else {}
        backlog = queue.backlogged(cursor)
        working = backlog | fanout.receivers(rows, by_type, self.urls, self.operator_types)
        held = self._lock(cursor, outcomes, unsent, wants, working)
        self._write_windows(cursor)
        self._reload_targets(cursor, kept)
        queue.record(cursor, outcomes)
        disabled = self._judge(cursor, outcomes)
        queue.release(cursor, unsent)
        # The lease's end by the database's clock: the claim's mark, which its outcome
        # must find, read once for every claim of the round, when the first is made.
        until = database.Later(self.db, cursor, self.lease)
        wanted, paced = self._split_wants(wants, held, working)
        # The most overdue first; what the windows still want comes claimed from the fan-out.
        claimed = queue.claim(cursor, _of(wanted, backlog), until, self.retries)
        claimed += self._fan_out(cursor, rows, wanted, claimed, until)
        # Last: the due times are nearest to the commit that lets them be sent.
        claimed += self._claim_throttled(cursor, paced, until)
        disabling.count(cursor, disabled)
        return Round(claimed, self.targets)

    def settle(self, outcomes, unsent, kept=()):
        """Record the last outcomes, give back what was not sent, and take this worker's
        windows off /metrics (at a stop)."""
        with self.db.transaction() as cursor:
            self._lock(cursor, outcomes, unsent, {})
            self._reload_targets(cursor, kept)
            queue.record(cursor, outcomes)
            disabled = self._judge(cursor, outcomes)
            queue.release(cursor, unsent)
            window_sizes.forget(cursor, self.worker)
            disabling.count(cursor, disabled)

    def tidy(self, retention, batch):
        """Delete up to batch deliveries delivered more than retention ago, and up to batch
        events older than the feed's retention (events.retention.Retention.prune); then settle
        the strays of endpoints disabled or deleted (see rounds.settle_strays), and once a
        minute forget the timelines' entries that no waiting event needs and the windows of
        workers gone. How many rows the first step deleted at the most, and every receiver the
        outbox holds."""
        deleted = outbox.delete_delivered(self.db, retention, batch)
        receivers = outbox.receivers(self.db)
        deleted = max(deleted, self.event_retention.prune(batch))
        strays = list(self._strays(receivers))
        if strays:
            with self.db.transaction() as cursor:
                rounds.settle_strays(self.db, cursor, strays)
        self._prune()
        return deleted, receivers

    def _prune(self):
        # The entries no event that may still be fanned out was written in, and the windows
        # no scrape counts any more.
        if time.monotonic() < self._prune_due:
            return
        timelines.prune(self.db)
        window_sizes.forget_gone(self.db)
        self._prune_due = time.monotonic() + PRUNE_INTERVAL

    def fail_pending(self, receiver, error):
        """Fail every pending delivery to receiver with error, in a transaction; how many."""
        with self.db.transaction() as cursor:
            return endpoint_log.fail_pending(cursor, receiver, error)

    def _strays(self, receivers):
        # A write transaction only where a stray may be: an endpoint deleted, or one disabled
        # that still has a pending delivery.
        for each in receivers:
            endpoint = self.targets.endpoints.get(each)
            if not is_endpoint(each) or (endpoint is not None and endpoint.enabled):
                continue
            if endpoint is None or outbox.any_pending(self.db, each):
                yield each

    def _write_windows(self, cursor):
        if time.monotonic() < self._windows_due:
            return
        self._writing, self._unwritten = self._unwritten, {}
        window_sizes.write(cursor, self.worker, self._writing, WINDOWS_LIFE)
        self._windows_due = time.monotonic() + WINDOWS_INTERVAL

    def _lock(self, cursor, outcomes, unsent, wants, working=()):
        # Before any delivery row, every endpoint whose rows the round writes: those its
        # outcomes may change, and the throttled ones it claims for (their schedule), and those
        # whose deliveries it gives back or claims (the ones in working that want some), so
        # that a disable waits for the round, and the endpoints read next are what it writes
        # over. The ids held for update.
        busy = {key for key in working if key in wants and is_endpoint(key)}
        writes = {each.receiver for each in outcomes if is_endpoint(each.receiver)}
        writes |= busy & self.targets.throttled.keys()
        reads = {each.receiver for each in unsent if is_endpoint(each.receiver)} | busy
        return rounds.lock(self.db, cursor, writes, reads)

    def _reload_targets(self, cursor, kept):
        # The receivers as the endpoints locked now are: what this round judges and claims by.
        self.targets = self.reader.read(self.db, cursor, kept)

    def _judge(self, cursor, outcomes):
        # The endpoints the recorded outcomes disable, in their transaction (disabling.judge).
        known = self.targets.endpoints
        disabled = disabling.judge(cursor, outcomes, self.disable_after, known)
        for endpoint_id, reason, _ in disabled:
            self.logger.warning("webhook endpoint %s disabled: %s", endpoint_id, reason)
        return disabled

    def _split_wants(self, wants, held, working):
        # Claims only for what has work and is still sent to, as read with the endpoints
        # locked; a throttled endpoint's by its schedule, only while its row is held for update.
        sent_to, rates = self.targets.by_receiver, self.targets.throttled
        busy = [key for key in working if key in wants and key in sent_to]
        wanted = {key: wants[key] for key in busy if key not in rates}
        paced = {key: wants[key] for key in busy if key in rates and key in held}
        return wanted, paced

    def _fan_out(self, cursor, rows, wanted, claimed, until):
        # Written claimed: what the windows want beyond the due deliveries claimed. The
        # timelines again if an endpoint changed since they were read (this round's disables).
        if not rows:
            return []
        taken = collections.Counter(delivery.receiver for delivery in claimed)
        left = {key: count - taken[key] for key, count in wanted.items()}
        by_type = self.timelines.current(cursor)
        return fanout.fan_out(cursor, rows, by_type, self.urls, self.operator_types, left, until)

    def _claim_throttled(self, cursor, paced, until):
        # Each throttled endpoint's deliveries, made due on its schedule.
        rates = self.targets.throttled
        return throttling.claim(cursor, paced, rates, until, self.retries, self.steps)


def _of(wants, receivers):
    # The wants of those receivers alone.
    return {key: count for key, count in wants.items() if key in receivers}
