"""The outbox as a whole: which receivers it holds deliveries to, whether one has a pending
delivery, and the old delivered rows its retention deletes."""

import sqlalchemy
from sqlalchemy import bindparam, func, select

from ....database import Now, Statement, inline
from . import DELIVERED, PENDING, deliveries

c = deliveries.c
ID, RECEIVER, LIMIT = (bindparam(key) for key in ("id", "receiver", "limit"))
# Oldest first, whatever their receiver, in their partial index's own order: the planner's one
# cheap plan however many rows it expects to have expired, where a LIMIT alone lets it bet on a
# scan of the table.
EXPIRED = Statement(
    select(c.id)
    .where(c.status == inline(DELIVERED), c.next_attempt_at < Now("cutoff", later=True))
    .order_by(c.next_attempt_at)
    .limit(LIMIT)
    .with_for_update(skip_locked=True)
)
DELETE = Statement(sqlalchemy.delete(deliveries).where(c.id == ID))
ANY_PENDING = Statement(
    select(inline(1).label("pending"))
    .select_from(deliveries)
    .where(c.receiver == RECEIVER, c.status == inline(PENDING))
    .limit(inline(1))
)


def _receivers():
    # Every receiver in the outbox, one index lookup each (a loose index scan, which neither
    # backend makes of SELECT DISTINCT).
    r = select(func.min(c.receiver).label("receiver")).cte("r", recursive=True)
    following = select(func.min(c.receiver)).where(c.receiver > r.c.receiver).scalar_subquery()
    r = r.union_all(select(following).where(r.c.receiver.is_not(None)))
    return Statement(select(r.c.receiver).where(r.c.receiver.is_not(None)))


RECEIVERS = _receivers()


def delete_delivered(db, older_than, limit):
    """Delete up to limit deliveries, the oldest first, delivered more than older_than (a
    timedelta) ago by the database's clock, to any receiver; how many went."""
    values = {"cutoff": -older_than.total_seconds(), "limit": limit}
    with db.transaction() as cursor:
        EXPIRED.execute(cursor, values)
        ids = [{"id": each} for each in EXPIRED.values(cursor)]
        if ids:
            DELETE.executemany(cursor, ids)
    return len(ids)


def any_pending(db, receiver):
    """Whether receiver has a pending delivery (one index lookup)."""
    with db.cursor() as cursor:
        ANY_PENDING.execute(cursor, {"receiver": receiver})
        return ANY_PENDING.value(cursor) is not None


def receivers(db):
    """Every receiver the outbox holds deliveries to, configured or not."""
    with db.cursor() as cursor:
        RECEIVERS.execute(cursor)
        return RECEIVERS.values(cursor)
