"""The deliveries table and its SQL: the webhook outbox and its worker's claims."""

from typing import NamedTuple

from sqlalchemy import Column, Index, Integer, String, Table, Text, insert

from ..database import driver_sql, metadata, utcnow
from ..database.sql import UTCDateTime

# The outbox: one row per new plant and receiver, written in the plant's own transaction.
deliveries = Table(
    "deliveries",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("url", Text, nullable=False),
    Column("event", String(50), nullable=False),
    # The exact bytes that are signed and sent, on every attempt.
    Column("body", Text, nullable=False),
    Column("status", String(10), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("next_attempt_at", UTCDateTime, nullable=False),
    # A worker's claim: nobody else sends the delivery before this time.
    Column("claimed_until", UTCDateTime),
    Column("delivered_at", UTCDateTime),
    Column("last_error", Text),
    Index("deliveries_due", "status", "next_attempt_at"),
)

PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"
NEW = ("id", "url", "event", "body", "status", "attempts", "created_at", "next_attempt_at")
TIMES = ("created_at", "next_attempt_at")
INSERT = driver_sql(insert(deliveries), column_keys=NEW)


def enqueue(db, cursor, rows):
    """Add pending deliveries inside a create's transaction (a driver cursor)."""
    cursor.executemany(
        INSERT[db.dialect],
        [{**row, **{key: db.bind_time(row[key]) for key in TIMES}} for row in rows],
    )


UNCLAIMED = "(claimed_until IS NULL OR claimed_until < :now)"
SPEND = driver_sql(
    "UPDATE deliveries SET status = 'failed', claimed_until = NULL, "
    "last_error = 'worker lost during the last attempt' "
    f"WHERE status = 'pending' AND attempts >= :max_attempts AND {UNCLAIMED}"
)
CLAIM_ONE = (
    "UPDATE deliveries SET claimed_until = :until, attempts = attempts + 1 WHERE id = ("
    "SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= :now "
    f"AND attempts < :max_attempts AND {UNCLAIMED} ORDER BY next_attempt_at LIMIT 1%s) "
    "RETURNING id, url, event, body, attempts"
)
# SKIP LOCKED lets PostgreSQL workers claim side by side; SQLite's writers take turns anyway.
CLAIM = {
    "sqlite": driver_sql(CLAIM_ONE % "")["sqlite"],
    "postgresql": driver_sql(CLAIM_ONE % " FOR UPDATE SKIP LOCKED")["postgresql"],
}
FINISH = driver_sql(
    "UPDATE deliveries SET claimed_until = NULL, last_error = :error, status = :status, "
    "delivered_at = :delivered_at, next_attempt_at = coalesce(:retry_at, next_attempt_at) "
    "WHERE id = :id AND status = 'pending'"
)
COUNTS = driver_sql("SELECT status, count(*) FROM deliveries GROUP BY status")
OLDEST = driver_sql("SELECT min(created_at) FROM deliveries WHERE status = 'pending'")
FAILED_ROWS = driver_sql(
    "SELECT id, url, attempts, last_error FROM deliveries WHERE status = 'failed' "
    "ORDER BY created_at"
)
RETRY_FAILED = driver_sql(
    "UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = :now, "
    "last_error = NULL WHERE status = 'failed'"
)


class Claimed(NamedTuple):
    """A delivery claimed for one attempt."""

    id: str
    url: str
    event: str
    body: str
    attempts: int


class Failed(NamedTuple):
    """A delivery that ran out of attempts."""

    id: str
    url: str
    attempts: int
    last_error: str


def claim(db, lease, max_attempts):
    """Claim the most overdue pending delivery for lease (a timedelta), counting the attempt.

    On PostgreSQL, SKIP LOCKED lets workers on several hosts claim side by side; on SQLite the
    write lock makes the claim atomic. A delivery whose last attempt outlived its lease (its
    worker died) is failed rather than tried beyond max_attempts.
    """
    now = utcnow()
    values = {
        "now": db.bind_time(now),
        "until": db.bind_time(now + lease),
        "max_attempts": max_attempts,
    }
    with db.transaction() as cursor:
        cursor.execute(SPEND[db.dialect], values)
        cursor.execute(CLAIM[db.dialect], values)
        row = cursor.fetchone()
    return Claimed(*row) if row else None


def finish(db, delivery_id, error=None, retry_at=None):
    """Record an attempt: delivered when there is no error, else retried at retry_at or failed."""
    status = DELIVERED if error is None else PENDING if retry_at is not None else FAILED
    values = {
        "id": delivery_id,
        "error": error,
        "status": status,
        "delivered_at": db.bind_time(utcnow() if error is None else None),
        "retry_at": db.bind_time(retry_at),
    }
    with db.transaction() as cursor:
        cursor.execute(FINISH[db.dialect], values)


def summary(db):
    """Deliveries counted by status, and when the oldest pending one was created."""
    with db.cursor() as cursor:
        cursor.execute(COUNTS[db.dialect])
        by_status = dict(cursor.fetchall())
        cursor.execute(OLDEST[db.dialect])
        oldest = db.read_time(cursor.fetchone()[0])
    return {status: by_status.get(status, 0) for status in (PENDING, DELIVERED, FAILED)}, oldest


def failed(db):
    """Every delivery that ran out of attempts, oldest first."""
    with db.cursor() as cursor:
        cursor.execute(FAILED_ROWS[db.dialect])
        return [Failed(*row) for row in cursor.fetchall()]


def retry_failed(db):
    """Make every failed delivery pending again with fresh attempts; how many there were."""
    with db.transaction() as cursor:
        cursor.execute(RETRY_FAILED[db.dialect], {"now": db.bind_time(utcnow())})
        return cursor.rowcount
