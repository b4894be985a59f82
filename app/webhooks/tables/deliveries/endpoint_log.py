"""An endpoint's deliveries: its log, newest first, a page at a time; sending them again (one,
or every failed one since a time) with fresh attempts; failing the pending ones of an endpoint
disabled, and deleting them all with the endpoint."""

import sqlalchemy
from sqlalchemy import bindparam, case, null, or_, select, update

from ....database import Now, Statement, inline
from . import FAILED, PENDING, deliveries

c = deliveries.c
RECEIVER, ID = bindparam("receiver"), bindparam("id")
# The database's clock (clock.Now), bound on SQLite.
NOW = Now()
# What the log shows of a delivery; its receiver is the endpoint asked for, its body the event.
SHOWN = (
    c.id,
    c.event_type,
    c.status,
    c.attempts,
    c.created_at,
    c.last_attempt_at,
    c.next_attempt_at,
    c.response_status,
    c.last_error,
    c.response_body,
)
# A fresh set of attempts from now, under the same id: completed by the deliveries it is for.
# A live claim is kept: its attempt in flight ends first (queue.RECORD), never beside another.
AGAIN = update(deliveries).values(
    status=inline(PENDING),
    attempts=inline(0),
    next_attempt_at=NOW,
    claimed_until=case((c.claimed_until < NOW, null()), else_=c.claimed_until),
    last_error=null(),
)
RESEND = Statement(AGAIN.where(c.receiver == RECEIVER, c.id == ID))
RECOVER = Statement(
    AGAIN.where(
        c.receiver == RECEIVER, c.status == inline(FAILED), c.created_at >= bindparam("since")
    )
)
FAIL_PENDING = Statement(
    update(deliveries)
    .where(c.receiver == ID, c.status == inline(PENDING))
    .values(status=inline(FAILED), claimed_until=null(), last_error=bindparam("error"))
)
DELETE = Statement(sqlalchemy.delete(deliveries).where(c.receiver == ID))


def _page(filtered, paged):
    # Newest first by (created_at, id); the first condition on created_at lets the index
    # deliveries_receiver_created seek to the page.
    shown = select(*SHOWN).where(c.receiver == RECEIVER)
    if filtered:
        shown = shown.where(c.status == bindparam("status"))
    if paged:
        at = bindparam("at")
        shown = shown.where(c.created_at <= at, or_(c.created_at < at, c.id < ID))
    shown = shown.order_by(c.created_at.desc(), c.id.desc())
    return Statement(shown.limit(bindparam("limit")), "Shown")


PAGES = {(filtered, paged): _page(filtered, paged) for filtered in (0, 1) for paged in (0, 1)}


def page(db, endpoint_id, status, before, limit):
    """Up to limit of the endpoint's deliveries, newest first: those in status (None: any),
    older than before ((created_at, id); None: from the newest). And whether more remain."""
    values = {"receiver": endpoint_id, "status": status, "limit": limit + 1}
    if before is not None:
        values.update(at=before[0], id=before[1])
    statement = PAGES[(status is not None, before is not None)]
    with db.cursor() as cursor:
        statement.execute(cursor, values)
        rows = [_shown(row) for row in statement.rows(cursor)]
    return rows[:limit], len(rows) > limit


def _shown(row):
    # A delivered or failed row keeps a time that no longer means anything.
    return row._asdict() | {
        "next_attempt_at": row.next_attempt_at if row.status == PENDING else None
    }


def resend(cursor, endpoint_id, delivery_id):
    """Give one delivery of the endpoint, whatever its status, a fresh set of attempts from
    now, in the cursor's transaction; whether there was one."""
    RESEND.execute(cursor, {"receiver": endpoint_id, "id": delivery_id})
    return cursor.rowcount == 1


def recover(cursor, endpoint_id, since):
    """Give every failed delivery of the endpoint created at since or later a fresh set of
    attempts from now, in the cursor's transaction."""
    RECOVER.execute(cursor, {"receiver": endpoint_id, "since": since})


def fail_disabled(cursor, endpoint_id, reason):
    """Fail the pending deliveries of an endpoint disabled for reason, in the cursor's
    transaction, so that a recover can send them once it is enabled again."""
    fail_pending(cursor, endpoint_id, f"endpoint disabled: {reason}")


def fail_pending(cursor, receiver, error):
    """Fail every pending delivery to receiver with error, in the cursor's transaction; how
    many."""
    FAIL_PENDING.execute(cursor, {"id": receiver, "error": error})
    return cursor.rowcount


def delete(cursor, endpoint_id):
    """Delete every delivery to the endpoint, in the cursor's transaction."""
    DELETE.execute(cursor, {"id": endpoint_id})
