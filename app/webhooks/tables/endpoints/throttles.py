"""A throttled endpoint's schedule: throttle_next, the earliest time its next attempt may begin,
read and advanced by the claim's transaction, which holds the endpoint's row; and the
database's clock, the one time every worker of every host shares."""

from sqlalchemy import bindparam, func, select, update

from ....database import Statement, utcnow
from . import webhook_endpoints

c = webhook_endpoints.c
NEXT = Statement(select(c.throttle_next).where(c.id == bindparam("id")))
ADVANCE = Statement(
    update(webhook_endpoints).where(c.id == bindparam("id")).values(throttle_next=bindparam("next"))
)
# The time now, not at the transaction's start: a claim may have waited for the row.
CLOCK = Statement(select(func.clock_timestamp().label("now")))


def clock(db, cursor):
    """The database's time now: PostgreSQL's clock, or this host's for SQLite (one host)."""
    if db.is_sqlite:
        return utcnow()
    cursor.execute(CLOCK[db.dialect])
    return CLOCK.row(cursor).now


def next_due(db, cursor, endpoint_id):
    """The earliest time the endpoint's next attempt may begin, or None when it has had none
    since it was throttled."""
    cursor.execute(NEXT[db.dialect], {"id": endpoint_id})
    row = NEXT.row(cursor)
    return None if row is None else db.read_time(row.throttle_next)


def advance(db, cursor, endpoint_id, moment):
    """Let the endpoint's next attempt begin at moment, no earlier."""
    cursor.execute(ADVANCE[db.dialect], {"id": endpoint_id, "next": db.bind_time(moment)})
