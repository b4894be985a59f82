"""The events table, which is the events feed, and every statement on it: a change writes one
event row in its own transaction (publish), whatever the number of webhook receivers. Readers
follow it in one order, the feed's: GET /events (routes.py), and the webhooks' fan-out, which
turns each event into a delivery per receiver. Events are deleted after the retention, a batch
at a time (delete_old).

The feed's order is (xid, id). On PostgreSQL, xid is the writing transaction's id, taken at its
first write, and a reader sees only the events of transactions older than the oldest still
running: an event whose transaction commits after one written later is never skipped, on one
host or many. On SQLite xid is 0: one writer at a time commits in id order, so id alone is the
order, and a reader sees every committed event.
"""

import re
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
    delete,
    func,
    insert,
    literal_column,
    select,
    tuple_,
)

from ..database import INSERTS, Statement, inline, metadata, utcnow
from ..database.sql import UTCDateTime, postgresql_only

events = Table(
    "events",
    metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
    # The writing transaction's id on PostgreSQL, 0 on SQLite: see the module's docstring.
    Column("xid", BigInteger, nullable=False, server_default="0"),
    Column("type", String(50), nullable=False),
    # The exact bytes each delivery sends and signs.
    Column("body", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    # PostgreSQL's feed order; SQLite's is its rowid, and the index would cost every change.
    postgresql_only(Index("events_feed", "xid", "id")),
)
# Where the feed's own readers stand: "fanout", the last event fanned out; "deleted", the last
# event deleted by the retention (every event up to it is gone). No row: before every event.
event_cursors = Table(
    "event_cursors",
    metadata,
    Column("name", String(20), primary_key=True),
    Column("xid", BigInteger, nullable=False),
    Column("id", BigInteger, nullable=False),
)
FANOUT, DELETED = "fanout", "deleted"
# Before every event.
START = (0, 0)
# An event's id in the feed and in the Plantstore-Event-Id header: its place, opaque to clients.
ID = re.compile(r"ev_(\d{1,19})_(\d{1,19})")
BIGINT_MAX = 2**63 - 1


class Event(NamedTuple):
    """An events row as the feed and the fan-out read it: its place (xid, id), its type, its
    body's exact text, and created_at as stored."""

    xid: int
    id: int
    type: str
    body: str
    created_at: object


e, c = events.c, event_cursors.c
# On PostgreSQL, the transaction's id (the same for every row it writes); 0 on SQLite.
_XID = "pg_current_xact_id()::text::bigint"
# Transactions older than the oldest running one have all ended: their events are all there.
_ENDED = e.xid < literal_column("pg_snapshot_xmin(pg_current_snapshot())::text::bigint")
# What a writer gives: every column but the id and the place, which the database sets.
_VALUES = {column.key: bindparam(column.key) for column in events.c if column not in (e.id, e.xid)}
# Inline: the new id is not asked back (PostgreSQL would add RETURNING for it).
INSERT = Statement(
    {
        "sqlite": insert(events).values(_VALUES).inline(),
        "postgresql": insert(events).values(xid=literal_column(_XID), **_VALUES).inline(),
    }
)
AFTER = tuple_(e.xid, e.id) > tuple_(bindparam("xid"), bindparam("id"))
# Each backend's events after a place, and their order (SQLite: by id, its rowid alone).
ORDER = {
    "sqlite": ((e.id > bindparam("id"),), (e.id,)),
    "postgresql": ((AFTER, _ENDED), (e.xid, e.id)),
}
COLUMNS = (e.xid, e.id, e.type, e.body, e.created_at)
CURSOR = Statement(select(c.xid, c.id).where(c.name == bindparam("name")))
# One fan-out at a time on PostgreSQL, until its round commits: another worker's round skips it.
FANNING_OUT = Statement(
    select(func.pg_try_advisory_xact_lock(inline(7166034265536446464)).label("held"))
)


def _moved(insert):
    new = insert(event_cursors).values(
        name=bindparam("name"), xid=bindparam("xid"), id=bindparam("id")
    )
    return new.on_conflict_do_update(
        index_elements=[c.name], set_={"xid": new.excluded.xid, "id": new.excluded.id}
    )


MOVE = Statement({dialect: _moved(insert) for dialect, insert in INSERTS.items()})
DELETE = Statement(delete(events).where(e.id == bindparam("id")))
NEWEST = Statement(select(func.max(e.id).label("id")))
DELETE_UP_TO = Statement(delete(events).where(e.id <= bindparam("id"), e.id < bindparam("newest")))
WAITING = Statement(
    {
        dialect: select(func.count().label("count"), func.min(e.created_at).label("oldest")).where(
            *where
        )
        for dialect, (where, _) in ORDER.items()
    }
)
# Each number of types a page may be filtered by, compiled once.
_PAGES = {}


def _page(types):
    statement = _PAGES.get(types)
    if statement is None:
        slots = [bindparam(f"type_{number}") for number in range(types)]
        each = {
            dialect: select(*COLUMNS)
            .where(*where, *([e.type.in_(slots)] if types else []))
            .order_by(*order)
            .limit(bindparam("limit"))
            for dialect, (where, order) in ORDER.items()
        }
        statement = _PAGES[types] = Statement(each, record=Event)
    return statement


def public_id(event):
    """An event's id as the feed and the deliveries show it."""
    return f"ev_{event.xid}_{event.id}"


def place(event_id):
    """The place (xid, id) of an event id the feed gave, or None when it is not one."""
    found = ID.fullmatch(event_id)
    if found is None:
        return None
    xid, number = int(found[1]), int(found[2])
    # The feed writes each number once, without leading zeros, and each fits a BIGINT.
    if f"ev_{xid}_{number}" != event_id or max(xid, number) > BIGINT_MAX:
        return None
    return xid, number


def publish(db, cursor, event_type, body):
    """Write one event of event_type (an EventType) with body (a dict) in the cursor's
    transaction: the change it announces and the event are both kept, or neither."""
    # Compact, and UTF-8 as it is: the bytes json.dumps(separators=(",", ":"),
    # ensure_ascii=False) writes, at a fraction of its cost on every change.
    values = {
        "type": event_type.name,
        "body": orjson.dumps(body).decode(),
        "created_at": db.bind_time(utcnow()),
    }
    cursor.execute(INSERT.sql[db.dialect], values)  # every change runs it: no call between


def page(db, cursor, after, types, limit):
    """Up to limit Events after the place after ((xid, id)), in the feed's order, of the types
    given (every type when there is none): only events that no reader can see before another
    that comes before them, in the cursor's transaction. after is no earlier than the DELETED
    cursor, which may still hold a row on SQLite (see _delete)."""
    statement = _page(len(types))
    values = {"xid": after[0], "id": after[1], "limit": limit}
    values.update((f"type_{number}", name) for number, name in enumerate(types))
    cursor.execute(statement[db.dialect], values)
    return statement.rows(cursor)


def where(db, cursor, name):
    """The place (xid, id) of the cursor name (FANOUT or DELETED)."""
    cursor.execute(CURSOR[db.dialect], {"name": name})
    row = CURSOR.row(cursor)
    return START if row is None else tuple(row)


def dropped_after(db, cursor, after):
    """Whether the retention deleted an event after the place after, by the feed's order on
    the cursor's backend (SQLite's is the id alone)."""
    deleted = where(db, cursor, DELETED)
    return after[1] < deleted[1] if db.is_sqlite else after < deleted


def claim_fanout(db, cursor):
    """The fan-out's place, the fan-out held until the cursor's transaction ends; None when
    another worker's round holds it (PostgreSQL; SQLite's write lock holds the database)."""
    if not db.is_sqlite:
        cursor.execute(FANNING_OUT[db.dialect])
        if not FANNING_OUT.row(cursor).held:
            return None
    return where(db, cursor, FANOUT)


def move(db, cursor, name, event):
    """Set the cursor name to the place of event, in the cursor's transaction."""
    cursor.execute(MOVE[db.dialect], {"name": name, "xid": event.xid, "id": event.id})


def delete_old(db, before, batch):
    """Delete, in the feed's order, up to batch of the events already fanned out that were
    written before before, stopping at the first one that was not; how many went."""
    with db.transaction() as cursor:
        fanned = where(db, cursor, FANOUT)
        candidates = [
            event
            for event in page(db, cursor, where(db, cursor, DELETED), (), batch)
            if (event.xid, event.id) <= fanned
        ]
        old = []
        for event in candidates:
            if db.read_time(event.created_at) >= before:
                break
            old.append(event)
        if old:
            _delete(db, cursor, old)
            move(db, cursor, DELETED, old[-1])
        return len(old)


def _delete(db, cursor, old):
    if not db.is_sqlite:
        cursor.executemany(DELETE[db.dialect], [{"id": event.id} for event in old])
        return
    # The newest row stays until another follows it, deleted for readers by the DELETED cursor
    # alone: SQLite gives a new row the largest rowid plus one, and an emptied table would give
    # its ids out again, which followers past them would never see.
    cursor.execute(NEWEST[db.dialect])
    cursor.execute(DELETE_UP_TO[db.dialect], {"id": old[-1].id, "newest": NEWEST.row(cursor).id})


def waiting(db):
    """How many events wait to be fanned out, and the creation time of the oldest (or None)."""
    with db.cursor() as cursor:
        xid, event_id = where(db, cursor, FANOUT)
        cursor.execute(WAITING[db.dialect], {"xid": xid, "id": event_id})
        row = WAITING.row(cursor)
    return row.count, db.read_time(row.oldest) if row.oldest is not None else None
