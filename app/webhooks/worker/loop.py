"""The delivery worker: one event loop sends concurrently, one thread claims and records in
batches, so that neither a slow receiver nor a wait for the database holds up the rest."""

import asyncio
import concurrent.futures
import contextlib
import datetime
import math
import signal
import time

import uvloop
from sqlalchemy.exc import SQLAlchemyError

from ... import database
from ...database import DatabaseFailure, Unavailable
from .. import settings
from ..receivers import is_endpoint, receiver_name
from ..tables.deliveries import outbox
from .ledger import Ledger
from .retries import said
from .sender import Sender
from .throttling import DueTimer
from .windows import Windows

# Longest pause of a worker whose database keeps failing, seconds.
MAX_OUTAGE_PAUSE = 30
# Longest wait for the next round within a poll interval of one that found deliveries: while
# events keep coming, the worker fans them out and claims rather than wait for the poll interval.
# Rounds every 50 ms cost 180 µs a delivery, every 100 ms 125 (docs/webhooks.md); a receiver
# running low never waits for it.
BUSY_POLL = 0.1
# Seconds between two retention deletes while the last one found fewer rows than a batch.
RETENTION_INTERVAL = 1
# What a round's database work may raise: the worker pauses and tries again, whatever it is.
DATABASE_ERRORS = (DatabaseFailure, SQLAlchemyError)
# last_error of the pending deliveries to a URL no longer configured, with no secret set.
UNSIGNED = "no PLANTSTORE_WEBHOOK_SECRET to sign with, and the receiver is no longer configured"


class Worker:
    """Fans events out and sends due deliveries concurrently: at most CONCURRENCY attempts, and
    each receiver's window (windows.py), so a receiver that hangs or fails can only hold its
    own few slots."""

    def __init__(self, app):
        values = self.settings = settings.of(app)
        self.db = database.of(app)
        self.logger = app.logger
        self.ledger = Ledger(app)
        # The receivers as the last round read them (never changed: each round hands new ones
        # back), and the operator's URLs no longer configured that are still sent to.
        self.targets = self.ledger.targets
        self.kept = frozenset()
        self.retries = self.ledger.retries
        self.poll_interval = values.poll_interval
        self.timeout = values.timeout
        self.retention = datetime.timedelta(seconds=values.retention)
        self.retention_batch = values.retention_batch
        self.windows = Windows(values)
        self.outcomes = []
        self.unsent = []
        self.tasks = set()
        self.stopping = False
        self.loop = None
        self.sender = self.due_timer = None
        self._wake = self._stopped = None
        self._next_retention = 0.0
        self._found_work = -math.inf
        # The one thread that talks to the database: a wait for a lock never stalls the loop.
        self._db_thread = concurrent.futures.ThreadPoolExecutor(1, "webhooks-db")

    def serve(self, started):
        """Deliver until SIGTERM or SIGINT, heard from started() on; then settle what is sent."""

        async def main():
            for signum in (signal.SIGTERM, signal.SIGINT):
                asyncio.get_running_loop().add_signal_handler(signum, self.stop)
            started()
            await self.run()

        # libuv's loop: about 5% less CPU per delivery than asyncio's (docs/performance.md).
        uvloop.run(main())

    def stop(self):
        """Stop claiming; run() returns once the attempts in flight are recorded."""
        self.stopping = True
        self._stopped.set()
        self._wake.set()

    async def run(self):
        """Deliver until stop(): claim, send, record; then settle what is in flight."""
        self.loop = asyncio.get_running_loop()
        self._wake, self._stopped = asyncio.Event(), asyncio.Event()
        self.due_timer = DueTimer(self.loop, self._start_ready)
        values = self.settings
        self.sender = Sender(self.timeout, values.allowed_networks, values.nameservers)
        try:
            await self._deliver()
            await self._settle()
        finally:
            await self.sender.close()
            self._db_thread.shutdown()

    async def _deliver(self):
        failures = 0
        while not self.stopping:
            self._wake.clear()
            outcomes, self.outcomes = self.outcomes, []
            unsent, self.unsent = self.unsent, []
            # Claimed deliveries are sent by then, or given back: see Ledger.lease.
            send_by = time.monotonic() + self.timeout
            try:
                wants = self.windows.wants(self.targets.by_receiver)
                sizes = self.windows.resized()
                claimed, self.targets = await self._in_db(
                    self.ledger.round, outcomes, unsent, wants, sizes, self.kept
                )
            except DATABASE_ERRORS as error:
                self.outcomes[:0] = outcomes
                self.unsent[:0] = unsent
                failures += 1
                await self._pause(failures, error)
                continue
            # An endpoint registered since the last round is claimed for in the next one, soon.
            if [key for key in self.targets.by_receiver if self.windows.add(key)]:
                self._found_work = time.monotonic()
            self.windows.hold(claimed, wants, send_by)
            self.windows.forget(self.targets.by_receiver)
            if self.stopping:
                break
            self._start_ready()
            try:
                await self._keep_retention()
            except DATABASE_ERRORS as error:
                failures += 1
                await self._pause(failures, error)
                continue
            failures = 0
            if claimed:
                self._found_work = time.monotonic()
            await self._idle(BUSY_POLL if self._busy() else self.poll_interval)

    def _busy(self):
        return time.monotonic() - self._found_work < self.poll_interval

    def _start_ready(self):
        """Start an attempt for every queued delivery that has a free slot (until a stop), and
        wake when the next delivery of a throttled endpoint is due."""
        if self.stopping:
            return
        for window, delivery in self.windows.ready(self.unsent):
            task = self.loop.create_task(self._attempt(window, delivery))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        self.due_timer.at(self.windows.next_due)

    async def _attempt(self, window, delivery):
        target = self.targets.get(delivery.receiver)
        if target is None:  # deleted or disabled since it was claimed: its row says so
            self.windows.done(window, False)
            self.unsent.append(delivery)
            return
        answered = False
        try:
            answer, raised = await self.sender.attempt(target, delivery)
            answered = answer.error is None
        finally:
            # A receiver running low claims at once; an idle worker records what ends.
            if self.windows.done(window, answered) or not self._busy():
                self._wake.set()
            self._start_ready()
        outcome = self.retries.outcome(delivery, answer)
        self.outcomes.append(outcome)
        said(self.logger, window.name, delivery, outcome, raised)

    async def _keep_retention(self):
        """Delete a batch of delivered rows past the retention, settle the strays of endpoints
        disabled or deleted (Ledger.tidy), and take up the operator's URLs no longer configured
        among the receivers it listed: once a second, or at once again while whole batches go."""
        if time.monotonic() < self._next_retention:
            return
        tidy = self.ledger.tidy
        deleted, receivers = await self._in_db(tidy, self.retention, self.retention_batch)
        await self._keep_other_receivers(receivers)
        if deleted < self.retention_batch:
            self._next_retention = time.monotonic() + RETENTION_INTERVAL

    async def _keep_other_receivers(self, receivers):
        # Looked for every second, not at start alone: retry-failed makes a removed URL's failed
        # deliveries pending again, and a host not yet rolled out may still write some.
        for receiver in receivers:
            if is_endpoint(receiver) or receiver in self.targets.by_receiver:
                continue
            if self.settings.secret:  # sent to as the operator's are, from the next round on
                self.kept |= {receiver}
                continue
            # Its failed rows are listed every second: a write transaction only for a pending one.
            if not await self._in_db(outbox.any_pending, self.db, receiver):
                continue
            failed = await self._in_db(self.ledger.fail_pending, receiver, UNSIGNED)
            if failed:
                name = receiver_name(receiver)
                self.logger.warning("%d delivery(ies) to %s failed: %s", failed, name, UNSIGNED)

    async def _idle(self, longest):
        """Wait at most longest seconds for a reason to claim now: a receiver running low, an
        outcome of an idle worker, or a stop."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), longest)

    async def _pause(self, failures, error):
        pause = min(MAX_OUTAGE_PAUSE, self.poll_interval * 2**failures)
        unavailable = isinstance(error, Unavailable)
        # A failure that has no name here (a bug, a constraint) is worth its traceback.
        self.logger.warning(
            "database %s, trying again in %.1fs: %s",
            "unavailable" if unavailable else "error",
            pause,
            getattr(error, "cause", error),
            exc_info=not unavailable,
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopped.wait(), pause)

    async def _settle(self):
        """After stop(): let the attempts in flight end (each within the timeout), record them,
        and give back what was claimed but not sent. A database that stays down for longer
        than its timeout leaves them to their leases: they are sent again when those end (and
        this worker's windows leave /metrics when theirs do)."""
        if self.tasks:
            await asyncio.wait(list(self.tasks))
        self.unsent += self.windows.drain()
        gives_up = time.monotonic() + self.db.timeout
        while True:
            try:
                await self._in_db(self.ledger.settle, self.outcomes, self.unsent, self.kept)
                return
            except DATABASE_ERRORS as error:
                if time.monotonic() > gives_up:
                    self.logger.warning(
                        "%d outcome(s) not recorded, sent again when their lease ends: %s",
                        len(self.outcomes) + len(self.unsent),
                        getattr(error, "cause", error),
                    )
                    return
                await asyncio.sleep(min(self.poll_interval, 1))

    async def _in_db(self, function, *args):
        return await self.loop.run_in_executor(self._db_thread, function, *args)
