"""The worker's statements on the deliveries table: write them as events are fanned out,
claim the due ones, record their outcomes, give back the unsent, delete the old delivered."""

import sqlalchemy

from ....database import driver_sql, utcnow
from ....database.sql import skip_locked
from . import DELIVERED, FAILED, LOST, PENDING, Delivery, deliveries

NEW = (
    "id",
    "receiver",
    "event",
    "body",
    "status",
    "attempts",
    "created_at",
    "next_attempt_at",
    "claimed_until",
    "last_error",
)
INSERT = driver_sql(sqlalchemy.insert(deliveries), column_keys=NEW)


def insert(db, cursor, rows):
    """Write new deliveries (dicts of the NEW columns) in the cursor's transaction."""
    if rows:
        cursor.executemany(INSERT[db.dialect], rows)


# Due or lost (lease run out) deliveries of one receiver, most overdue first.
DUE = skip_locked(
    "SELECT id, event, body, attempts FROM deliveries WHERE receiver = :receiver "
    "AND status = 'pending' AND next_attempt_at <= :now "
    "AND (claimed_until IS NULL OR claimed_until < :now) "
    "ORDER BY next_attempt_at LIMIT :limit"
)
CLAIM = driver_sql(
    "UPDATE deliveries SET claimed_until = :until, attempts = attempts + 1 WHERE id = :id"
)
GIVE_UP = driver_sql(
    f"UPDATE deliveries SET status = 'failed', claimed_until = NULL, last_error = '{LOST}' "
    "WHERE id = :id"
)
# Only on the claim the attempt was made under. A claimed delivery counts one attempt at least:
# none means a resend came meanwhile (log.AGAIN), and it is due again now, its claim let go.
RESENT = "attempts = 0"
RECORD = driver_sql(
    f"UPDATE deliveries SET status = CASE WHEN {RESENT} THEN 'pending' ELSE :status END, "
    "claimed_until = NULL, last_error = :error, "
    f"delivered_at = CASE WHEN {RESENT} THEN delivered_at ELSE :delivered_at END, "
    f"next_attempt_at = CASE WHEN {RESENT} THEN next_attempt_at "
    "ELSE COALESCE(:next_at, next_attempt_at) END, "
    "last_attempt_at = :now, response_status = :response_status "
    "WHERE id = :id AND status = 'pending' AND claimed_until = :claim"
)
RELEASE = driver_sql(
    f"UPDATE deliveries SET claimed_until = NULL, "
    f"attempts = CASE WHEN {RESENT} THEN 0 ELSE attempts - 1 END "
    "WHERE id = :id AND status = 'pending' AND claimed_until = :claim"
)
EXPIRED = skip_locked(
    "SELECT id FROM deliveries WHERE receiver = :receiver AND status = 'delivered' "
    "AND next_attempt_at < :cutoff LIMIT :limit"
)
DELETE = driver_sql("DELETE FROM deliveries WHERE id = :id")
ANY_PENDING = driver_sql(
    "SELECT 1 FROM deliveries WHERE receiver = :receiver AND status = 'pending' LIMIT 1"
)
# Every receiver in the outbox, one index lookup each (a loose index scan, which neither
# backend makes of SELECT DISTINCT).
RECEIVERS = driver_sql(
    "WITH RECURSIVE r(receiver) AS (SELECT MIN(receiver) FROM deliveries UNION ALL "
    "SELECT (SELECT MIN(receiver) FROM deliveries WHERE receiver > r.receiver) FROM r "
    "WHERE r.receiver IS NOT NULL) SELECT receiver FROM r WHERE receiver IS NOT NULL"
)


def claim(db, cursor, wants, until, retries):
    """Claim, in the cursor's transaction, up to wants[receiver] due deliveries of each one.

    Each claimed delivery is leased until until and counts one more attempt; it is returned
    as a Delivery. A delivery whose last attempt outlived its lease (its worker died) is
    failed instead when retries allow it no other attempt.
    """
    bound = {"now": db.bind_time(utcnow()), "until": db.bind_time(until)}
    claimed, lost = [], []
    for receiver, limit in wants.items():
        cursor.execute(DUE[db.dialect], {**bound, "receiver": receiver, "limit": limit})
        for delivery_id, event, body, attempts in cursor.fetchall():
            if retries.another_allowed(attempts):
                claimed.append(
                    Delivery(delivery_id, receiver, event, body, attempts + 1, bound["until"])
                )
            else:
                lost.append({"id": delivery_id})
    if claimed:
        cursor.executemany(
            CLAIM[db.dialect], [{"until": bound["until"], "id": each.id} for each in claimed]
        )
    if lost:
        cursor.executemany(GIVE_UP[db.dialect], lost)
    return claimed


def record(db, cursor, outcomes):
    """Record attempts, each an Outcome: delivered without an error, else retried at retry_at,
    or failed when that is None."""
    if not outcomes:
        return
    now = db.bind_time(utcnow())
    rows = []
    for outcome in outcomes:
        if outcome.error is None:
            status, delivered_at, next_at = DELIVERED, now, now
        else:
            status, delivered_at = (PENDING if outcome.retry_at else FAILED), None
            next_at = db.bind_time(outcome.retry_at) if outcome.retry_at else None
        rows.append(
            {
                "id": outcome.id,
                "status": status,
                "error": outcome.error,
                "delivered_at": delivered_at,
                "next_at": next_at,
                "now": now,
                "response_status": outcome.response_status,
                "claim": outcome.claim,
            }
        )
    cursor.executemany(RECORD[db.dialect], rows)


def release(db, cursor, deliveries):
    """Give back claimed Deliveries that were not sent, with the attempt they were given: each
    only while its claim holds, so that a resend's fresh attempts are left as they are."""
    if deliveries:
        rows = [{"id": each.id, "claim": each.claim} for each in deliveries]
        cursor.executemany(RELEASE[db.dialect], rows)


def delete_delivered(db, receivers, older_than, limit):
    """Delete up to limit deliveries to receivers (those the outbox holds: configured, an
    endpoint disabled, or neither) delivered more than older_than ago; how many went."""
    cutoff = db.bind_time(utcnow() - older_than)
    ids = []
    with db.transaction() as cursor:
        for receiver in receivers:
            left = {"receiver": receiver, "cutoff": cutoff, "limit": limit - len(ids)}
            cursor.execute(EXPIRED[db.dialect], left)
            ids += [{"id": row[0]} for row in cursor.fetchall()]
            if len(ids) >= limit:
                break
        if ids:
            cursor.executemany(DELETE[db.dialect], ids)
    return len(ids)


def any_pending(db, receiver):
    """Whether receiver has a pending delivery (one index lookup)."""
    with db.cursor() as cursor:
        cursor.execute(ANY_PENDING[db.dialect], {"receiver": receiver})
        return cursor.fetchone() is not None


def receivers(db):
    """Every receiver the outbox holds deliveries to, configured or not."""
    with db.cursor() as cursor:
        cursor.execute(RECEIVERS[db.dialect])
        return [row[0] for row in cursor.fetchall()]
