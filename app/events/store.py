"""The events table, which is the events feed: a change writes one event row in its own
transaction (publish), whatever the number of webhook receivers. Readers follow it in one order,
the feed's: GET /events (routes.py), and the webhooks' fan-out, which turns each event into a
delivery per receiver. Events are deleted after the retention (retention.py).

The feed's order is (epoch, xid, id). On PostgreSQL, xid is the writing transaction's id, taken
at its first write, and a reader sees only the events of transactions older than the oldest
still running: an event whose transaction commits after one written later is never skipped,
on one host or many. Transaction ids only mean something in the cluster and on the timeline
that gave them: each epoch (feed_epochs) keeps the identity of the cluster that wrote it, its
system identifier and timeline, and the first write anywhere else (a restore, a copy, a replica
promoted after a failover) opens the next epoch (plantstore_feed_epoch(), the column's default,
made by the migrations), which sorts after every event of the ones before, and whose events
alone may still be running. On SQLite epoch and xid are 0: one writer at a time commits in id
order, so id alone is the order, and a reader sees every committed event.

Each PostgreSQL event also keeps the snapshot it was written in, by which the fan-out tells the
endpoints' changes that committed before it from those that did not, with no clock.
"""

import datetime
from typing import NamedTuple

import orjson
from sqlalchemy import (
    BigInteger,
    Column,
    Index,
    Integer,
    String,
    Table,
    Text,
    bindparam,
    func,
    insert,
    literal_column,
    or_,
    select,
    tuple_,
    union_all,
)

from ..database import Now, Statement, inline, metadata
from ..database.backend_schema import postgresql_default, postgresql_only, sqlite_only
from ..database.column_types import UTCDateTime
from .ids import Place

# On PostgreSQL, the writing transaction's id, and the epoch of the cluster it runs in.
XID = "pg_current_xact_id()::text::bigint"
EPOCH = "plantstore_feed_epoch()"

events = Table(
    "events",
    metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
    # The place's first two parts: see the module's docstring. 0 on SQLite.
    postgresql_default(Column("epoch", BigInteger, nullable=False, server_default="0"), EPOCH),
    postgresql_default(Column("xid", BigInteger, nullable=False, server_default="0"), XID),
    Column("type", String(50), nullable=False),
    # The exact bytes each delivery sends and signs.
    Column("body", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    # What the writing transaction saw (xmin:xmax:running): None on SQLite, and before epochs.
    postgresql_default(Column("snapshot", Text), "pg_current_snapshot()::text"),
    # PostgreSQL's feed order; SQLite's is its rowid, and the index would cost every change.
    postgresql_only(Index("events_feed", "epoch", "xid", "id")),
    # Each type's events in the feed's order (SQLite's index holds the rowid): a page of a rare
    # type reads its own events, not every event after its place (docs/decisions.md).
    postgresql_only(Index("events_type", "type", "epoch", "xid", "id")),
    sqlite_only(Index("events_type_rowid", "type")),
)
# Every cluster and timeline the feed was written on (PostgreSQL): the first write on another
# opens the next epoch. An epoch's identity is None when it was written before epochs kept one
# and the migration found it a copy's.
feed_epochs = Table(
    "feed_epochs",
    metadata,
    Column("epoch", BigInteger, primary_key=True, autoincrement=False),
    Column("since", UTCDateTime, nullable=False),
    Column("system_identifier", BigInteger),
    Column("timeline", BigInteger),
)


class Event(NamedTuple):
    """An events row as the feed and the fan-out read it: its place (epoch, xid, id), its
    type, its body's exact text, when it was written, and the snapshot it was written in."""

    epoch: int
    xid: int
    id: int
    type: str
    body: str
    created_at: datetime.datetime
    snapshot: str | None


e = events.c
COLUMNS = (e.epoch, e.xid, e.id, e.type, e.body, e.created_at, e.snapshot)
PLACE = (e.epoch, e.xid, e.id)
# Written by the columns' own defaults where the backend has them: a writer on older code, which
# names none of them, writes the same.
_VALUES = {"type": bindparam("type"), "body": bindparam("body"), "created_at": Now()}
# Inline: the new id is not asked back (PostgreSQL would add RETURNING for it).
INSERT = Statement(insert(events).values(_VALUES).inline())
# The oldest transaction running now: every snapshot still to be taken has it or a later one.
XMIN = "pg_snapshot_xmin(pg_current_snapshot())::text::bigint"
# The epoch of this cluster and timeline, computed once a statement.
HERE = select(func.plantstore_feed_here()).scalar_subquery()
# On PostgreSQL, what no reader can see before another event that comes before it: the events
# of a past epoch (every one of their transactions ended there), and those of transactions
# older than the oldest running here.
_ENDED = or_(e.epoch < HERE, e.xid < literal_column(XMIN))
_AFTER = tuple_(*PLACE) > tuple_(bindparam("epoch"), bindparam("xid"), bindparam("id"))
# Each backend's events after a place, and their order (SQLite: by id, its rowid alone).
ORDER = {
    "sqlite": ((e.id > bindparam("id"),), (e.id,)),
    "postgresql": ((_AFTER, _ENDED), PLACE),
}
# Each backend's events of one type after a place. PostgreSQL's place starts with the type
# too: only the type's index can read that range, where the planner, which judges a place by
# its epoch alone (the same for every event), would take the feed's index and filter it.
TYPED = {
    "sqlite": lambda slot: (e.id > bindparam("id"), e.type == slot),
    "postgresql": lambda slot: (
        tuple_(e.type, *PLACE)
        > tuple_(slot, bindparam("epoch"), bindparam("xid"), bindparam("id")),
        e.type == slot,
        _ENDED,
    ),
}
# The event at a place, when it is kept.
KEPT = Statement(
    select(e.id).where(
        e.id == bindparam("id"), e.epoch == bindparam("epoch"), e.xid == bindparam("xid")
    )
)
HERE_NOW = Statement(select(HERE.label("epoch")))
HELD_BACK = Statement(
    select(func.count().label("count"), func.min(e.created_at).label("oldest")).where(
        e.epoch == HERE, e.xid >= literal_column(XMIN)
    ),
    "Backlog",
)
# Each number of types a page may be filtered by, compiled once.
_PAGES = {}


def _page(types):
    # A filtered page reads each type's events through its index, limit + 1 at the most, and
    # the last event of any type there is: where a page that reached the end goes on.
    statement = _PAGES.get(types)
    if statement is None:
        each = {}
        for dialect, (where, order) in ORDER.items():
            first = select(*COLUMNS).where(*where).order_by(*order).limit(bindparam("limit"))
            if types:
                slots = [bindparam(f"type_{number}") for number in range(types)]
                branches = [
                    select(*COLUMNS).where(*TYPED[dialect](slot)).order_by(*order) for slot in slots
                ]
                branches = [branch.limit(bindparam("limit")) for branch in branches]
                last = select(*COLUMNS).where(*where).order_by(*(part.desc() for part in order))
                merged = union_all(
                    *(select(branch.subquery()) for branch in (*branches, last.limit(inline(1))))
                ).subquery()
                first = select(merged).order_by(*(merged.c[part.key] for part in order))
                first = first.limit(bindparam("limit"))
            each[dialect] = first
        statement = _PAGES[types] = Statement(each, record=Event)
    return statement


def publish(cursor, event_type, body):
    """Write one event of event_type (an EventType) with body (a dict) in the cursor's
    transaction: the change it announces and the event are both kept, or neither."""
    # Compact, and UTF-8 as it is: the bytes json.dumps(separators=(",", ":"),
    # ensure_ascii=False) writes, at a fraction of its cost on every change.
    values = {"type": event_type.name, "body": orjson.dumps(body).decode()}
    INSERT.execute(cursor, values)  # every change runs it: no call between


def page(cursor, after, types, limit):
    """Up to limit Events after the place after, in the feed's order, of the types given (every
    type when there is none): only events that no reader can see before another that comes
    before them, in the cursor's transaction; and the Place of the last event the page went
    past, of any type (None when it went past none), where the next page starts."""
    statement = _page(len(types))
    values = {**after._asdict(), "limit": limit + 1 if types else limit}
    values.update((f"type_{number}", name) for number, name in enumerate(types))
    statement.execute(cursor, values)
    rows = statement.rows(cursor)
    if not types:
        return rows, (_place(rows[-1]) if rows else None)
    if len(rows) > 1 and rows[-1] == rows[-2]:
        rows.pop()  # the last event of any type is of a type listed too: read twice
    wanted = set(types)
    shown = [event for event in rows if event.type in wanted][:limit]
    passed = shown[-1] if len(shown) == limit else (rows[-1] if rows else None)
    return shown, (_place(passed) if passed else None)


def _place(event):
    return Place(event.epoch, event.xid, event.id)


def kept(cursor, place):
    """Whether the event at place (a Place) is in the table."""
    KEPT.execute(cursor, place._asdict())
    return KEPT.value(cursor) is not None


def here(db, cursor):
    """The epoch of the cluster and timeline the cursor's connection is on (0 on SQLite): the
    epoch of its next event, whose past ones every event of an earlier epoch belongs to."""
    if db.is_sqlite:
        return 0
    HERE_NOW.execute(cursor)
    return HERE_NOW.value(cursor)


def held_back(db):
    """How many events are written but not yet in the feed (PostgreSQL: a transaction older
    than theirs still runs), and the creation time of the oldest (or None)."""
    if db.is_sqlite:
        return 0, None
    with db.cursor() as cursor:
        HELD_BACK.execute(cursor)
        row = HELD_BACK.row(cursor)
    return row.count, row.oldest
