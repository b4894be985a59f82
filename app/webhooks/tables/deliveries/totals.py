"""The deliveries of every receiver counted, as `webhooks status` and /metrics show them, and
the failed ones retried or purged (the `webhooks` commands)."""

import sqlalchemy
from sqlalchemy import func, select

from ....database import Statement, inline
from . import DELIVERED, FAILED, PENDING, deliveries
from .endpoint_log import AGAIN

c = deliveries.c
IS_FAILED = c.status == inline(FAILED)

BY_RECEIVER = Statement(
    select(
        c.receiver, c.status, func.count().label("total"), func.min(c.created_at).label("oldest")
    )
    .where(c.status.in_([inline(PENDING), inline(FAILED)]))
    .group_by(c.receiver, c.status),
    "Counted",
)
DELIVERED_COUNT = Statement(
    select(func.count().label("delivered"))
    .select_from(deliveries)
    .where(c.status == inline(DELIVERED))
)
FAILED_LIST = Statement(
    select(c.id, c.receiver, c.attempts, c.last_error).where(IS_FAILED).order_by(c.created_at),
    "Failed",
)
RETRY_FAILED = Statement(AGAIN.where(IS_FAILED))
PURGE_FAILED = Statement(sqlalchemy.delete(deliveries).where(IS_FAILED))


def by_receiver(db):
    """The pending and failed deliveries of each receiver by status: records of receiver,
    status, their total and the oldest one's created_at."""
    with db.cursor() as cursor:
        BY_RECEIVER.execute(cursor)
        return BY_RECEIVER.rows(cursor)


def delivered_count(db):
    """How many delivered deliveries are kept."""
    with db.cursor() as cursor:
        DELIVERED_COUNT.execute(cursor)
        return DELIVERED_COUNT.value(cursor)


def failed(db):
    """Every delivery that ran out of attempts, oldest first: records of id, receiver,
    attempts and last_error."""
    with db.cursor() as cursor:
        FAILED_LIST.execute(cursor)
        return FAILED_LIST.rows(cursor)


def retry_failed(db):
    """Make every failed delivery pending again with fresh attempts; how many there were."""
    with db.transaction() as cursor:
        RETRY_FAILED.execute(cursor)
        return cursor.rowcount


def purge_failed(db):
    """Delete every failed delivery; how many there were."""
    with db.transaction() as cursor:
        PURGE_FAILED.execute(cursor)
        return cursor.rowcount
