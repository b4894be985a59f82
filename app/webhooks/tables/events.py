"""The events table: a change writes one event row, whatever the number of receivers, which
the worker fans out to a delivery per receiver (worker/fanout.py) and deletes."""

from sqlalchemy import BigInteger, Column, Integer, String, Table, Text

from ...database import driver_sql, metadata
from ...database.sql import UTCDateTime, skip_locked

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

INSERT = driver_sql(
    "INSERT INTO events (type, body, created_at) VALUES (:type, :body, :created_at)"
)
# The oldest events first; another worker's are skipped, not waited for.
OLDEST = skip_locked("SELECT id, type, body, created_at FROM events ORDER BY id LIMIT :limit")
DELETE = driver_sql("DELETE FROM events WHERE id = :id")
WAITING = driver_sql("SELECT COUNT(*), MIN(created_at) FROM events")


def publish(db, cursor, event_type, body, created_at):
    """Write one event (body: its exact text) in the cursor's transaction."""
    values = {"type": event_type, "body": body, "created_at": db.bind_time(created_at)}
    cursor.execute(INSERT[db.dialect], values)


def oldest(db, cursor, limit):
    """Up to limit of the oldest events, in the cursor's transaction, as rows of (id, type,
    body, created_at as stored); locked, those of another worker left out."""
    cursor.execute(OLDEST[db.dialect], {"limit": limit})
    return cursor.fetchall()


def delete(db, cursor, ids):
    """Delete the events of these ids, in the cursor's transaction."""
    cursor.executemany(DELETE[db.dialect], [{"id": event_id} for event_id in ids])


def waiting(db):
    """How many events wait to be fanned out, and the creation time of the oldest (or None)."""
    with db.cursor() as cursor:
        cursor.execute(WAITING[db.dialect])
        count, oldest_at = cursor.fetchone()
    return count, db.read_time(oldest_at) if oldest_at is not None else None
