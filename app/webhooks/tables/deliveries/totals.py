"""The deliveries of every receiver counted, as `webhooks status` and /metrics show them, the
failed ones listed a page at a time, retried or purged (the `webhooks` commands).

A count costs what the outbox holds back, never what it has sent: pending and failed rows are
read through partial indexes of theirs alone, and the delivered ones are counted one by one only
up to EXACT_UP_TO, then estimated (docs/webhooks.md, "Seeing the outbox")."""

import datetime
from typing import NamedTuple

import sqlalchemy
from sqlalchemy import (
    BigInteger,
    bindparam,
    column,
    func,
    literal_column,
    select,
    table,
    tuple_,
    union_all,
)

from ....database import Statement, inline
from . import DELIVERED, FAILED, PENDING, deliveries
from .endpoint_log import AGAIN

c = deliveries.c
# Word for word the partial index's condition, so that SQLite uses it too.
IS_FAILED = c.status == inline(FAILED)
# Delivered rows counted one by one at the most: beyond, their number is estimated.
EXACT_UP_TO = 1000
# Where the failed list starts: before any delivery.
FIRST = {"created_at": datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC), "id": ""}


def _counted(status):
    # One status's deliveries per receiver, read from its own partial index.
    return (
        select(
            c.receiver,
            inline(status).label("status"),
            func.count().label("total"),
            func.min(c.created_at).label("oldest"),
        )
        .where(c.status == inline(status))
        .group_by(c.receiver)
    )


BY_RECEIVER = Statement(union_all(_counted(PENDING), _counted(FAILED)), "Counted")
DELIVERED_UP_TO = Statement(
    select(func.count().label("delivered")).select_from(
        select(c.id).where(c.status == inline(DELIVERED)).limit(inline(EXACT_UP_TO + 1)).subquery()
    )
)
_class = table("pg_class", column("oid"), column("reltuples"), column("relpages"))
_PAGES_NOW = "pg_relation_size('deliveries') / current_setting('block_size')::int"
# PostgreSQL's own estimate of the table's rows, as its planner makes it: the rows a page held
# when it was last analyzed, times its pages now. None before its first analysis.
ROWS_ABOUT = Statement(
    select(
        (_class.c.reltuples / _class.c.relpages * literal_column(_PAGES_NOW)).cast(BigInteger)
    ).where(
        _class.c.oid == literal_column("'deliveries'::regclass"),
        _class.c.reltuples >= inline(0),
        _class.c.relpages > inline(0),
    )
)
# Typed: a tuple's comparison gives its parameters no type of the columns'.
_AT = (bindparam("created_at", type_=c.created_at.type), bindparam("id", type_=c.id.type))
FAILED_AT = Statement(select(c.created_at).where(c.id == bindparam("id"), IS_FAILED))
FAILED_PAGE = Statement(
    select(c.id, c.receiver, c.attempts, c.last_error)
    .where(IS_FAILED, tuple_(c.created_at, c.id) > tuple_(*_AT))
    .order_by(c.created_at, c.id)
    .limit(bindparam("limit")),
    "Failed",
)
RETRY_FAILED = Statement(AGAIN.where(IS_FAILED))
PURGE_FAILED = Statement(sqlalchemy.delete(deliveries).where(IS_FAILED))


class Delivered(NamedTuple):
    """How many delivered deliveries are kept: number, exactly when exact; else about number
    (PostgreSQL's estimate), or more than EXACT_UP_TO when number is None (no estimate)."""

    number: int | None
    exact: bool


def by_receiver(db):
    """The pending and failed deliveries of each receiver by status: records of receiver,
    status, their total and the oldest one's created_at."""
    with db.cursor() as cursor:
        BY_RECEIVER.execute(cursor)
        return BY_RECEIVER.rows(cursor)


def delivered(db, unsettled):
    """How many delivered deliveries are kept, as a Delivered: exact up to EXACT_UP_TO, beyond
    it PostgreSQL's estimate of the table's rows less unsettled, the pending and failed ones."""
    with db.cursor() as cursor:
        DELIVERED_UP_TO.execute(cursor)
        counted = DELIVERED_UP_TO.value(cursor)
        if counted <= EXACT_UP_TO:
            return Delivered(counted, True)
        about = None
        if not db.is_sqlite:
            ROWS_ABOUT.execute(cursor)
            rows = ROWS_ABOUT.value(cursor)
            about = None if rows is None else max(rows - unsettled, counted)
    return Delivered(about, False)


def failed(db, after=None, limit=100):
    """Up to limit deliveries that ran out of attempts, oldest first, after the failed delivery
    whose id is after (from the first when None): records of id, receiver, attempts and
    last_error. None when after names no failed delivery (retried or purged since)."""
    with db.cursor() as cursor:
        start = FIRST
        if after is not None:
            FAILED_AT.execute(cursor, {"id": after})
            created_at = FAILED_AT.value(cursor)
            if created_at is None:
                return None
            start = {"created_at": created_at, "id": after}
        FAILED_PAGE.execute(cursor, {**start, "limit": limit})
        return FAILED_PAGE.rows(cursor)


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
