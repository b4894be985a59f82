"""The endpoints' timelines: an entry for each change of an endpoint (whether it is enabled,
and its event types), from when it took it, so that the fan-out sends each event to the
endpoints as they were when it was written, however many changes came before the worker got to
it.

"When" is the feed's, not a clock's, on PostgreSQL: an entry is the event's when the change that
made it had committed as the event was written (the event's snapshot saw its transaction), so
hosts whose clocks disagree judge alike. On SQLite, one host, one writer at a time: by time."""

import bisect
from typing import NamedTuple

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    String,
    Table,
    bindparam,
    delete,
    func,
    select,
    text,
    tuple_,
)

from .... import events
from ....database import Statement, inline, metadata, utcnow
from ....database.backend_schema import postgresql_default, postgresql_only
from ....database.column_types import JSONText, UTCDateTime
from . import serial

# How long a replaced entry is kept for events whose transactions have not committed yet.
UNCOMMITTED_KEPT = "1 hour"

webhook_endpoint_timelines = Table(
    "webhook_endpoint_timelines",
    metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
    Column("endpoint_id", String(64), nullable=False),
    # Stamped inside the change's write transaction, as an event is: on SQLite, after the write
    # lock is held, so that the stamps of changes and events are in their commit order.
    Column("since", UTCDateTime, nullable=False),
    Column("enabled", Boolean, nullable=False),
    # A JSON array of event types, as webhook_endpoints.events.
    Column("events", JSONText, nullable=False),
    # The changing transaction's epoch and id, as an event's (app/events/store.py); 0 on SQLite.
    postgresql_default(
        Column("epoch", BigInteger, nullable=False, server_default="0"), events.store.EPOCH
    ),
    postgresql_default(
        Column("xid", BigInteger, nullable=False, server_default="0"), events.store.XID
    ),
    Index("webhook_endpoint_timelines_endpoint", "endpoint_id", "since"),
    # Entries by place: what plantstore_feed_epoch() read before epochs were identities.
    postgresql_only(Index("webhook_endpoint_timelines_place", "epoch", "xid")),
)

h = webhook_endpoint_timelines.c
# An endpoint's changes are made one after the other, its row held: their ids are in the
# order they committed.
EVERY = Statement(
    select(h.endpoint_id, h.since, h.epoch, h.xid, h.enabled, h.events).order_by(
        h.endpoint_id, h.id
    ),
    "Entry",
)
DELETE = Statement(delete(webhook_endpoint_timelines).where(h.endpoint_id == bindparam("id")))
# Every endpoint has a timeline from its creation until it is deleted.
ANY = Statement(select(h.id).limit(inline(1)))
_later = webhook_endpoint_timelines.alias("later")
# An entry that a later one replaced, which decides no event the fan-out has still to read: on
# SQLite, where events are judged by time, the later one came before the horizon; on
# PostgreSQL, its transaction ended before every such event committed was written (its place
# before events.cursors.seen), and an hour ago: events not yet committed keep no snapshot that
# a reader sees, and the database timeout ends their transactions long before.
PRUNE = Statement(
    {
        "sqlite": delete(webhook_endpoint_timelines).where(
            h.since
            < select(func.max(_later.c.since))
            .where(_later.c.endpoint_id == h.endpoint_id, _later.c.since <= bindparam("horizon"))
            .scalar_subquery()
        ),
        "postgresql": delete(webhook_endpoint_timelines).where(
            h.id
            < select(func.max(_later.c.id))
            .where(
                _later.c.endpoint_id == h.endpoint_id,
                tuple_(_later.c.epoch, _later.c.xid) < tuple_(bindparam("epoch"), bindparam("xid")),
                _later.c.since < func.now() - text(f"interval '{UNCOMMITTED_KEPT}'"),
            )
            .scalar_subquery()
        ),
    }
)


class Seen(NamedTuple):
    """What an event's transaction saw as it wrote the event (PostgreSQL): its epoch, and the
    snapshot's xmin, xmax and the transactions running then."""

    epoch: int
    xmin: int
    xmax: int
    running: frozenset

    @classmethod
    def of(cls, epoch, snapshot):
        """The Seen of an event of epoch written in snapshot, pg_snapshot's text."""
        xmin, xmax, running = snapshot.split(":")
        return cls(epoch, int(xmin), int(xmax), frozenset(int(x) for x in running.split(",") if x))

    def saw(self, epoch, xid):
        """Whether the change made in epoch by the transaction xid had committed."""
        if epoch != self.epoch:
            return epoch < self.epoch
        return xid < self.xmin or (xid < self.xmax and xid not in self.running)


class Timeline(NamedTuple):
    """An endpoint's timeline, its entries in the order they were made: since (datetimes), the
    epoch and id of the transaction that made each (PostgreSQL), whether it was enabled then and
    the event types it was subscribed to."""

    since: list
    places: list
    enabled: list
    events: list

    def took(self, event_type, moment):
        """Whether an event of event_type goes to the endpoint: it existed, was enabled and was
        subscribed to event_type at moment, the event's Seen, or the time it was written on
        SQLite (and on PostgreSQL for an event written before events kept their snapshot)."""
        index = self._last_at(moment)
        return index >= 0 and self.enabled[index] and event_type in self.events[index]

    def _last_at(self, moment):
        if isinstance(moment, Seen):
            # The entries it saw are the first ones: each change waited for the one before.
            return next(
                (at for at in reversed(range(len(self.places))) if moment.saw(*self.places[at])),
                -1,
            )
        return bisect.bisect_right(self.since, moment) - 1

    @property
    def enabled_now(self):
        """Whether the endpoint is enabled, as its timeline's last entry says."""
        return self.enabled[-1]


def of_endpoints(cursor):
    """{endpoint id: its Timeline} of every endpoint, in the cursor's transaction."""
    EVERY.execute(cursor)
    found = {}
    for state in EVERY.rows(cursor):
        timeline = found.setdefault(state.endpoint_id, Timeline([], [], [], []))
        timeline.since.append(state.since)
        timeline.places.append((state.epoch, state.xid))
        timeline.enabled.append(state.enabled)
        timeline.events.append(frozenset(state.events))
    return found


class Kept:
    """Every endpoint's Timeline as a worker last read it, by event type, read again only once
    an endpoint changed (their change serial moved on: serial.py). Entries pruned since stay
    until then: they decide no event still to be read."""

    def __init__(self):
        # None until the first read: a serial of None is a table no change has written yet.
        self.changed = self.by_type = None

    def current(self, cursor):
        """{event type: [(endpoint id, Timeline)] of every endpoint one of whose entries took
        it}, as the endpoints are in the cursor's transaction: call it after reading the events
        it judges, so that no change committed before one of them is missed."""
        changed, _ = serial.read(cursor)
        if self.by_type is None or changed != self.changed:
            self.changed = changed
            self.by_type = _by_type(of_endpoints(cursor))
        return self.by_type


def _by_type(by_endpoint):
    found = {}
    for endpoint_id, timeline in by_endpoint.items():
        for event_type in frozenset().union(*timeline.events):
            found.setdefault(event_type, []).append((endpoint_id, timeline))
    return found


def any_endpoint(cursor):
    """Whether an endpoint is registered, enabled or not: one the fan-out may give events to."""
    ANY.execute(cursor)
    return ANY.value(cursor) is not None


def forget(cursor, endpoint_id):
    """Delete the endpoint's timeline, in the cursor's transaction (it is deleted)."""
    DELETE.execute(cursor, {"id": endpoint_id})


def prune(db):
    """Delete the entries that a later one replaced before any event the fan-out has still to
    read was written, in the feed's terms: its place on PostgreSQL, its time on SQLite; how
    many went. None go while an event of older code, judged by time alone, waits there."""
    with db.transaction() as cursor:
        if db.is_sqlite:
            now = utcnow()
            oldest = events.cursors.waiting_since(cursor) or now
            values = {"horizon": min(oldest, now)}
        else:
            seen = events.cursors.seen(cursor)
            if seen is None:
                return 0
            values = {"epoch": seen[0], "xid": seen[1]}
        PRUNE.execute(cursor, values)
        return cursor.rowcount
