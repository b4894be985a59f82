"""SQL of the deliveries table: the webhook outbox and its worker's claims."""

from sqlalchemy import func, insert, or_, select, update

from ..db import deliveries, driver_sql
from . import utcnow

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


def claim(db, lease, max_attempts):
    """Claim the most overdue pending delivery for lease (a timedelta), counting the attempt.

    On PostgreSQL, SKIP LOCKED lets workers on several hosts claim side by side; on SQLite the
    write lock makes the claim atomic. A delivery whose last attempt outlived its lease (its
    worker died) is failed rather than tried beyond max_attempts.
    """
    now = utcnow()
    unclaimed = or_(deliveries.c.claimed_until.is_(None), deliveries.c.claimed_until < now)
    spent = (
        update(deliveries)
        .where(deliveries.c.status == PENDING, deliveries.c.attempts >= max_attempts, unclaimed)
        .values(status=FAILED, claimed_until=None, last_error="worker lost during the last attempt")
    )
    due = (
        select(deliveries.c.id)
        .where(
            deliveries.c.status == PENDING,
            deliveries.c.next_attempt_at <= now,
            deliveries.c.attempts < max_attempts,
            unclaimed,
        )
        .order_by(deliveries.c.next_attempt_at)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    statement = (
        update(deliveries)
        .where(deliveries.c.id == due)
        .values(claimed_until=now + lease, attempts=deliveries.c.attempts + 1)
        .returning(
            deliveries.c.id,
            deliveries.c.url,
            deliveries.c.event,
            deliveries.c.body,
            deliveries.c.attempts,
        )
    )
    with db.write() as conn:
        conn.execute(spent)
        return conn.execute(statement).first()


def finish(db, delivery_id, error=None, retry_at=None):
    """Record an attempt: delivered when there is no error, else retried at retry_at or failed."""
    values = {"claimed_until": None, "last_error": error}
    if error is None:
        values.update(status=DELIVERED, delivered_at=utcnow())
    elif retry_at is not None:
        values.update(next_attempt_at=retry_at)
    else:
        values.update(status=FAILED)
    with db.write() as conn:
        conn.execute(
            update(deliveries)
            .where(deliveries.c.id == delivery_id, deliveries.c.status == PENDING)
            .values(values)
        )


def summary(db):
    """Deliveries counted by status, and when the oldest pending one was created."""
    counts = select(deliveries.c.status, func.count()).group_by(deliveries.c.status)
    oldest = select(func.min(deliveries.c.created_at)).where(deliveries.c.status == PENDING)
    with db.read() as conn:
        by_status = dict(conn.execute(counts).all())
        return {status: by_status.get(status, 0) for status in (PENDING, DELIVERED, FAILED)}, (
            conn.execute(oldest).scalar_one()
        )


def failed(db):
    """Every delivery that ran out of attempts, oldest first."""
    query = (
        select(deliveries.c.id, deliveries.c.url, deliveries.c.attempts, deliveries.c.last_error)
        .where(deliveries.c.status == FAILED)
        .order_by(deliveries.c.created_at)
    )
    with db.read() as conn:
        return conn.execute(query).all()


def retry_failed(db):
    """Make every failed delivery pending again with fresh attempts; how many there were."""
    with db.write() as conn:
        return conn.execute(
            update(deliveries)
            .where(deliveries.c.status == FAILED)
            .values(status=PENDING, attempts=0, next_attempt_at=utcnow(), last_error=None)
        ).rowcount
