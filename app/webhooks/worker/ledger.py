"""The worker's side of the database: each round's one transaction, and the transaction that
settles a stop. Its methods run in the worker's database thread."""

import datetime
import time
import uuid

from ... import database, events
from ...database import utcnow
from ..receivers import is_endpoint
from ..tables import windows
from ..tables.deliveries import log, queue
from ..tables.endpoints import worker_view
from . import disabling, fanout
from .retries import Retries
from .targets import Targets

# Seconds a lease allows beyond the attempt and its recording, for clocks of hosts that differ.
CLOCK_MARGIN = 5
# Events one round fans out at most: a bounded transaction, so creates get the write lock soon.
FANOUT_BATCH = 500
# Seconds between two writes of the windows for /metrics, and how long /metrics believes one.
WINDOWS_INTERVAL, WINDOWS_LIFE = 0.5, 5


class Ledger:
    """Reads the endpoints, records outcomes (and the endpoints they disable), gives back what
    was not sent, claims, and fans events out, writing claimed what the windows still want;
    writes the windows for /metrics: the write lock once per round."""

    def __init__(self, app):
        config = app.config
        self.db = database.of(app)
        self.logger = app.logger
        self.urls = config["WEBHOOK_URLS"]
        self.disable_after = config["WEBHOOK_DISABLE_AFTER"]
        self.retries = Retries(config)
        self.targets = Targets(config, app.logger)
        self.operator_types = {
            name for name, event_type in events.types(app).items() if event_type.operator
        }
        # A claimed delivery waits at most one timeout for a slot, its attempt ends by its
        # deadline and is recorded within the database timeout: no other worker can claim it
        # while it is being sent.
        timeout = config["WEBHOOK_TIMEOUT"]
        self.lease = datetime.timedelta(
            seconds=2 * timeout + config["DATABASE_TIMEOUT"] + CLOCK_MARGIN
        )
        self.worker = uuid.uuid4().hex
        self._windows_due = 0.0

    def exchange(self, outcomes, unsent, wants, sizes):
        """One round's transaction, steps 2, 3 and 5 of a delivery's life (see the package's
        docstring); the Deliveries claimed (up to wants[receiver] each). Every WINDOWS_INTERVAL,
        the windows' sizes ({receiver: size}) are written for /metrics too."""
        with self.db.transaction() as cursor:
            self._write_windows(cursor, sizes)
            disabled = self._record(cursor, outcomes)
            queue.release(self.db, cursor, unsent)
            until = utcnow() + self.lease
            # The most overdue first; what the windows still want comes claimed from the fan-out.
            claimed = queue.claim(self.db, cursor, wants, until, self.retries)
            left = dict(wants)
            for delivery in claimed:
                left[delivery.receiver] -= 1
            subscribed = self.targets.endpoints.values()
            claimed += fanout.fan_out(
                self.db,
                cursor,
                self.urls,
                self.operator_types,
                subscribed,
                FANOUT_BATCH,
                left,
                until,
            )
            disabling.count(self.db, cursor, disabled)
            return claimed

    def settle(self, outcomes, unsent):
        """Record the last outcomes, give back what was not sent, and take this worker's
        windows off /metrics (at a stop)."""
        with self.db.transaction() as cursor:
            disabled = self._record(cursor, outcomes)
            queue.release(self.db, cursor, unsent)
            windows.forget(self.db, cursor, self.worker)
            disabling.count(self.db, cursor, disabled)

    def tidy(self, retention, batch):
        """Delete up to batch deliveries delivered more than retention ago; then settle the
        strays of endpoints disabled or deleted (see worker_view.settle_strays). How many
        deliveries the first step deleted, and every receiver the outbox holds."""
        receivers = queue.receivers(self.db)
        deleted = queue.delete_delivered(self.db, receivers, retention, batch)
        strays = list(self._strays(receivers))
        if strays:
            with self.db.transaction() as cursor:
                worker_view.settle_strays(self.db, cursor, strays)
        return deleted, receivers

    def fail_pending(self, receiver, error):
        """Fail every pending delivery to receiver with error, in a transaction; how many."""
        with self.db.transaction() as cursor:
            return log.fail_pending(self.db, cursor, receiver, error)

    def _strays(self, receivers):
        # A write transaction only where a stray may be: an endpoint deleted, or one disabled
        # that still has a pending delivery.
        for each in receivers:
            endpoint = self.targets.endpoints.get(each)
            if not is_endpoint(each) or (endpoint is not None and endpoint.enabled):
                continue
            if endpoint is None or queue.any_pending(self.db, each):
                yield each

    def _write_windows(self, cursor, sizes):
        if time.monotonic() < self._windows_due:
            return
        now = utcnow()
        expires_at = now + datetime.timedelta(seconds=WINDOWS_LIFE)
        windows.write(self.db, cursor, self.worker, sizes, now, expires_at)
        self._windows_due = time.monotonic() + WINDOWS_INTERVAL

    def _record(self, cursor, outcomes):
        # Outcomes, and the endpoints they disable, in one transaction: see disabling.judge. The
        # endpoints they may write are locked before all are read (what is sent in this round
        # is the endpoints as they are now), so that the read is what is written over.
        disabling.lock(self.db, cursor, outcomes)
        self.targets.refresh(self.db, cursor)
        queue.record(self.db, cursor, outcomes)
        known = self.targets.endpoints
        disabled = disabling.judge(self.db, cursor, outcomes, utcnow(), self.disable_after, known)
        for endpoint_id, reason, _ in disabled:
            self.logger.warning("webhook endpoint %s disabled: %s", endpoint_id, reason)
        return disabled
