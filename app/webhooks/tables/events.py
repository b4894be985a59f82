"""The events table: a change writes one event row, whatever the number of receivers, which
the worker fans out to a delivery per receiver (worker/fanout.py) and deletes."""

from sqlalchemy import (
    BigInteger,
    Column,
    Integer,
    String,
    Table,
    Text,
    bindparam,
    delete,
    func,
    insert,
    select,
)

from ...database import Statement, metadata
from ...database.sql import UTCDateTime
from .records import Event

# Published events not yet fanned out: the cheapest row SQLite has (a rowid key, no other
# index), deleted once its deliveries are written.
events = Table(
    "events",
    metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
    Column("type", String(50), nullable=False),
    # The exact bytes each delivery sends and signs.
    Column("body", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

e = events.c
# Inline: the new id is not asked back (PostgreSQL would add RETURNING for it).
INSERT = Statement(
    insert(events)
    .values(type=bindparam("type"), body=bindparam("body"), created_at=bindparam("created_at"))
    .inline()
)
# The oldest events first; another worker's are skipped, not waited for.
OLDEST = Statement(
    select(e.id, e.type, e.body, e.created_at)
    .order_by(e.id)
    .limit(bindparam("limit"))
    .with_for_update(skip_locked=True),
    record=Event,
)
DELETE = Statement(delete(events).where(e.id == bindparam("id")))
WAITING = Statement(select(func.count().label("count"), func.min(e.created_at).label("oldest")))


def publish(db, cursor, event_type, body, created_at):
    """Write one event (body: its exact text) in the cursor's transaction."""
    values = {"type": event_type, "body": body, "created_at": db.bind_time(created_at)}
    cursor.execute(INSERT[db.dialect], values)


def oldest(db, cursor, limit):
    """Up to limit of the oldest events, in the cursor's transaction, as Events (created_at as
    stored); locked, those of another worker left out."""
    cursor.execute(OLDEST[db.dialect], {"limit": limit})
    return OLDEST.rows(cursor)


def delete(db, cursor, ids):
    """Delete the events of these ids, in the cursor's transaction."""
    cursor.executemany(DELETE[db.dialect], [{"id": event_id} for event_id in ids])


def waiting(db):
    """How many events wait to be fanned out, and the creation time of the oldest (or None)."""
    with db.cursor() as cursor:
        cursor.execute(WAITING[db.dialect])
        row = WAITING.row(cursor)
    return row.count, db.read_time(row.oldest) if row.oldest is not None else None
