"""A throttled endpoint's schedule: throttle_next, the earliest time its next attempt may begin,
read with the database's clock and advanced by the claim's transaction, which holds the
endpoint's row: the one time every worker of every host shares."""

from sqlalchemy import bindparam, select, update

from ....database import Now, Statement
from . import webhook_endpoints

c = webhook_endpoints.c
# The clock read by the same statement, now and not at the transaction's start: a claim may
# have waited for the row.
NEXT = Statement(
    select(c.throttle_next, Now().label("now")).where(c.id == bindparam("id")), "Schedule"
)
ADVANCE = Statement(
    update(webhook_endpoints).where(c.id == bindparam("id")).values(throttle_next=bindparam("next"))
)


def next_due(cursor, endpoint_id):
    """(the earliest time the endpoint's next attempt may begin, or None when it has had none
    since it was throttled; the database's time now), both aware datetimes; None when there is
    no such endpoint."""
    NEXT.execute(cursor, {"id": endpoint_id})
    row = NEXT.row(cursor)
    if row is None:
        return None
    return row.throttle_next, row.now


def advance(cursor, endpoint_id, moment):
    """Let the endpoint's next attempt begin at moment, no earlier."""
    ADVANCE.execute(cursor, {"id": endpoint_id, "next": moment})
