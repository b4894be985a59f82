"""The events table and the fan-out: a change writes one event row, whatever the number of
receivers, and the worker turns it into one delivery per receiver, off the request path."""

import uuid

from sqlalchemy import BigInteger, Column, Integer, String, Table, Text

from ..database import driver_sql, metadata
from ..database.sql import UTCDateTime, skip_locked
from . import store

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
# The last_error of a delivery to an endpoint disabled between its event and its fan-out.
DISABLED = "endpoint disabled before the event was fanned out"
WAITING = driver_sql("SELECT COUNT(*), MIN(created_at) FROM events")


def publish(db, cursor, event_type, body, created_at):
    """Write one event (body: its exact text) in the cursor's transaction."""
    values = {"type": event_type, "body": body, "created_at": db.bind_time(created_at)}
    cursor.execute(INSERT[db.dialect], values)


def fan_out(db, cursor, urls, operator_types, subscribed, limit):
    """Turn up to limit of the oldest events into one delivery per receiver, in the cursor's
    transaction, and delete them.

    The operator's receivers (urls) get the events of operator_types (names); each endpoint
    of subscribed (endpoints.Endpoint) gets those it was subscribed to and enabled for when
    they were written, failed when it has been disabled since. A delivery keeps its event's
    creation time, so that its age counts from the change.
    """
    cursor.execute(OLDEST[db.dialect], {"limit": limit})
    rows = cursor.fetchall()
    if not rows:
        return
    deliveries = []
    for _, event_type, body, created_at in rows:
        receivers = [(url, True) for url in urls] if event_type in operator_types else []
        at = db.read_time(created_at)
        receivers += [(each.id, each.enabled) for each in subscribed if each.takes(event_type, at)]
        deliveries += [
            {
                "id": uuid.uuid4().hex,
                "receiver": receiver,
                "event": event_type,
                "body": body,
                "status": store.PENDING if enabled else store.FAILED,
                "attempts": 0,
                "created_at": created_at,
                "next_attempt_at": created_at,
                "last_error": None if enabled else DISABLED,
            }
            for receiver, enabled in receivers
        ]
    if deliveries:
        cursor.executemany(store.INSERT[db.dialect], deliveries)
    cursor.executemany(DELETE[db.dialect], [{"id": row[0]} for row in rows])


def waiting(db):
    """How many events wait to be fanned out, and the creation time of the oldest (or None)."""
    with db.cursor() as cursor:
        cursor.execute(WAITING[db.dialect])
        count, oldest = cursor.fetchone()
    return count, db.read_time(oldest) if oldest is not None else None
