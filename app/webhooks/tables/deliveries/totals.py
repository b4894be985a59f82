"""The deliveries of every receiver counted, as `webhooks status` and /metrics show them, and
the failed ones retried or purged (the `webhooks` commands)."""

from ....database import driver_sql, utcnow
from .log import AGAIN

BY_RECEIVER = driver_sql(
    "SELECT receiver, status, COUNT(*), MIN(created_at) FROM deliveries "
    "WHERE status IN ('pending', 'failed') GROUP BY receiver, status"
)
DELIVERED_COUNT = driver_sql("SELECT COUNT(*) FROM deliveries WHERE status = 'delivered'")
FAILED_LIST = driver_sql(
    "SELECT id, receiver, attempts, last_error FROM deliveries WHERE status = 'failed' "
    "ORDER BY created_at"
)
RETRY_FAILED = driver_sql(AGAIN + "status = 'failed'")
PURGE_FAILED = driver_sql("DELETE FROM deliveries WHERE status = 'failed'")


def by_receiver(db):
    """{(receiver, status): (count, oldest created_at)} of pending and failed deliveries."""
    with db.cursor() as cursor:
        cursor.execute(BY_RECEIVER[db.dialect])
        rows = cursor.fetchall()
    return {
        (receiver, status): (count, db.read_time(oldest))
        for receiver, status, count, oldest in rows
    }


def delivered_count(db):
    """How many delivered deliveries are kept."""
    with db.cursor() as cursor:
        cursor.execute(DELIVERED_COUNT[db.dialect])
        return cursor.fetchone()[0]


def failed(db):
    """Every delivery that ran out of attempts, oldest first: (id, receiver, attempts, last
    error)."""
    with db.cursor() as cursor:
        cursor.execute(FAILED_LIST[db.dialect])
        return cursor.fetchall()


def retry_failed(db):
    """Make every failed delivery pending again with fresh attempts; how many there were."""
    with db.transaction() as cursor:
        cursor.execute(RETRY_FAILED[db.dialect], {"now": db.bind_time(utcnow())})
        return cursor.rowcount


def purge_failed(db):
    """Delete every failed delivery; how many there were."""
    with db.transaction() as cursor:
        cursor.execute(PURGE_FAILED[db.dialect])
        return cursor.rowcount
