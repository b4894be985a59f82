"""The worker's statements on the deliveries table: write them as events are fanned out,
claim the due ones, record their outcomes, give back the unsent (the outbox as a whole, in
outbox.py)."""

import uuid

import sqlalchemy
from sqlalchemy import bindparam, case, func, null, or_, select, update

from ....database import Now, Statement, inline
from ..records import Delivery
from . import DELIVERED, FAILED, LOST, PENDING, deliveries

c = deliveries.c
ID, RECEIVER, LIMIT = (bindparam(key) for key in ("id", "receiver", "limit"))
# The database's clock (clock.Now): on PostgreSQL read by the statement, bound on SQLite.
NOW = Now()
# Seconds of a step back of the database's clock that delay no delivery never attempted.
STEP_MOST = 60
# Only on the claim the attempt was made under.
CLAIMED = (c.id == ID, c.status == inline(PENDING), c.claimed_until == bindparam("claim"))

# What a new delivery sets; the columns of an attempt stay NULL until it has had one.
NEW = (
    "id",
    "receiver",
    "event_type",
    "body",
    "status",
    "attempts",
    "created_at",
    "next_attempt_at",
    "claimed_until",
    "last_error",
    "event_id",
)
INSERT = Statement(sqlalchemy.insert(deliveries).values({name: bindparam(name) for name in NEW}))


def new(receiver, event_type, body, created_at, event_id):
    """A delivery the fan-out makes, with an id of its own and no attempt yet: a Delivery."""
    return Delivery(uuid.uuid4().hex, receiver, event_type, body, created_at, 0, event_id=event_id)


def insert(cursor, written):
    """Write the fan-out's NewDeliveries in the cursor's transaction, one statement for all:
    each pending (claimed, if its Delivery is), or failed with its error."""
    if written:
        INSERT.executemany(cursor, [_row(each) for each in written])


def _row(written):
    # The columns NEW names: a NewDelivery's row.
    delivery, error = written
    return {
        "id": delivery.id,
        "receiver": delivery.receiver,
        "event_type": delivery.event_type,
        "body": delivery.body,
        "status": FAILED if error else PENDING,
        "attempts": delivery.attempts,
        "created_at": delivery.created_at,
        "next_attempt_at": delivery.created_at,
        "claimed_until": delivery.claim,
        "last_error": error,
        "event_id": delivery.event_id,
    }


def _due(*when):
    # Due or lost (lease run out) deliveries of one receiver, most overdue first.
    return (
        select(c.id, c.event_type, c.body, c.created_at, c.attempts, c.event_id)
        .where(
            c.receiver == RECEIVER,
            c.status == inline(PENDING),
            *when,
            or_(c.claimed_until.is_(None), c.claimed_until < NOW),
        )
        .order_by(c.next_attempt_at)
        .limit(LIMIT)
        .with_for_update(skip_locked=True)
    )


DUE = Statement(
    {
        # One host's clock, which its own writes follow: due by it alone.
        "sqlite": _due(c.next_attempt_at <= NOW),
        # Never attempted is due at once: a step back of the database's clock (up to
        # STEP_MOST) must not put off what was written due "now" before it. The range keeps
        # the index's.
        "postgresql": _due(
            c.next_attempt_at <= Now("soon", later=True),
            or_(c.next_attempt_at <= NOW, c.attempts == inline(0)),
        ),
    },
    "Due",
)


def _backlogged():
    # Every receiver with a pending delivery, one index lookup each (a loose index scan of the
    # pending rows' own index), so that a round asks only them for due deliveries.
    pending = c.status == inline(PENDING)
    r = select(func.min(c.receiver).label("receiver")).where(pending).cte("r", recursive=True)
    following = select(func.min(c.receiver)).where(pending, c.receiver > r.c.receiver)
    r = r.union_all(select(following.scalar_subquery()).where(r.c.receiver.is_not(None)))
    return Statement(select(r.c.receiver).where(r.c.receiver.is_not(None)))


BACKLOGGED = _backlogged()
CLAIM = Statement(
    update(deliveries)
    .where(c.id == ID)
    .values(claimed_until=bindparam("until"), attempts=c.attempts + inline(1))
)
# A throttled endpoint's claim: its attempt is due at the time its schedule gave it.
SCHEDULE = Statement(update(deliveries).where(c.id == ID).values(next_attempt_at=bindparam("at")))
GIVE_UP = Statement(
    update(deliveries)
    .where(c.id == ID)
    .values(status=inline(FAILED), claimed_until=null(), last_error=inline(LOST))
)
# A claimed delivery counts one attempt at least: none means a resend came meanwhile
# (log.AGAIN), and it is due again now, its claim let go.
RESENT = c.attempts == inline(0)
DELIVERED_NOW = bindparam("delivered")
# Retried: due retry_in seconds from now by the database's clock (on SQLite, bound as the time).
RETRY_IN = Now("retry_in", later=True)
RECORD = Statement(
    update(deliveries)
    .where(*CLAIMED)
    .values(
        status=case((RESENT, inline(PENDING)), else_=bindparam("status")),
        claimed_until=null(),
        last_error=bindparam("error"),
        delivered_at=case((RESENT, c.delivered_at), (DELIVERED_NOW, NOW), else_=null()),
        next_attempt_at=case(
            (RESENT, c.next_attempt_at),
            (DELIVERED_NOW, NOW),
            (bindparam("retried"), RETRY_IN),
            else_=c.next_attempt_at,
        ),
        last_attempt_at=NOW,
        response_status=bindparam("response_status"),
        response_body=bindparam("response_body"),
    )
)
RELEASE = Statement(
    update(deliveries)
    .where(*CLAIMED)
    .values(claimed_until=null(), attempts=case((RESENT, inline(0)), else_=c.attempts - inline(1)))
)


def claim(cursor, wants, until, retries):
    """Claim, in the cursor's transaction, up to wants[receiver] due deliveries of each one.

    Each is claimed (Delivery.claimed): leased until until() (a clock.Later, read at the
    first claim), one more attempt counted. A delivery whose last attempt
    outlived its lease (its worker died) is failed instead when retries allow it no other
    attempt.
    """
    bound = {"soon": STEP_MOST}
    claimed, lost = [], []
    for receiver, limit in wants.items():
        DUE.execute(cursor, {**bound, "receiver": receiver, "limit": limit})
        for due in DUE.rows(cursor):
            if retries.another_allowed(due.attempts):
                delivery = Delivery(
                    due.id,
                    receiver,
                    due.event_type,
                    due.body,
                    due.created_at,
                    due.attempts,
                    event_id=due.event_id,
                )
                claimed.append(delivery.claimed(until))
            else:
                lost.append({"id": due.id})
    if claimed:
        CLAIM.executemany(cursor, [{"until": each.claim, "id": each.id} for each in claimed])
    if lost:
        GIVE_UP.executemany(cursor, lost)
    return claimed


def backlogged(cursor):
    """The receivers with a pending delivery, due or not, as a set: those a claim may find."""
    BACKLOGGED.execute(cursor)
    return set(BACKLOGGED.values(cursor))


def schedule(cursor, dues):
    """Make each claimed delivery due when its attempt may begin: dues, [(id, datetime)]."""
    rows = [{"id": each, "at": at} for each, at in dues]
    SCHEDULE.executemany(cursor, sorted(rows, key=lambda row: row["id"]))


def record(cursor, outcomes):
    """Record attempts, each an Outcome, by the database's clock: delivered without an error,
    else retried retry_in seconds from now, or failed when that is None."""
    if not outcomes:
        return
    rows = []
    for outcome in outcomes:
        delivered, retry_in = outcome.error is None, outcome.retry_in
        status = DELIVERED if delivered else PENDING if retry_in is not None else FAILED
        rows.append(
            {
                "id": outcome.id,
                "status": status,
                "error": outcome.error,
                "delivered": delivered,
                "retried": retry_in is not None,
                "retry_in": retry_in,
                "response_status": outcome.response_status,
                "response_body": outcome.response_body,
                "claim": outcome.claim,
            }
        )
    # By id, as every writer of delivery rows takes them: no two transactions wait in a circle.
    RECORD.executemany(cursor, sorted(rows, key=lambda row: row["id"]))


def release(cursor, deliveries):
    """Give back claimed Deliveries that were not sent, with the attempt they were given: each
    only while its claim holds, so that a resend's fresh attempts are left as they are."""
    if deliveries:
        rows = [{"id": each.id, "claim": each.claim} for each in deliveries]
        RELEASE.executemany(cursor, sorted(rows, key=lambda row: row["id"]))
