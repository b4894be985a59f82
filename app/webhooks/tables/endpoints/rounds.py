"""The endpoints in a worker's round: as it reads them, the locks it takes on them, and the
failures it follows on them (when an endpoint began failing, and its disabling once it has
failed for long enough)."""

from sqlalchemy import bindparam, case, false, null, select, update

from ....database import Now, Statement
from ..deliveries import endpoint_log
from ..records import Endpoint
from . import DISABLED_FAILING, webhook_endpoints

c = webhook_endpoints.c


def _live(until):
    # An overlap's end while it lasts by the database's clock, which wrote it; else NULL.
    return case((until > Now(), until), else_=null())


BY_ID = c.id == bindparam("id")
# The columns of an Endpoint read otherwise than as they are kept.
_READ_AS = {
    "previous_until": _live(c.previous_until).label("previous_until"),
    "older_until": _live(c.older_until).label("older_until"),
}
# What the worker needs of every endpoint, read once a round, to send and judge: the columns
# an Endpoint names, a new field's too. The fan-out goes by timelines.py, what each endpoint
# took when.
FOR_WORKER = Statement(
    select(*(_READ_AS.get(name, c[name]) for name in Endpoint._fields)), record=Endpoint
)
# Taken one row at a time, by ascending id, before any delivery row: the order of the API too.
LOCK = Statement(select(c.id).where(BY_ID).with_for_update())
SHARE = Statement(select(c.id).where(BY_ID).with_for_update(read=True))
STATE = Statement(select(c.enabled, c.disabled_reason).where(BY_ID), "State")
MARK_FAILING = Statement(
    update(webhook_endpoints).where(BY_ID, c.failing_since.is_(None)).values(failing_since=Now())
)
CLEAR_FAILING = Statement(
    update(webhook_endpoints)
    .where(BY_ID, c.failing_since.is_not(None))
    .values(failing_since=null())
)
# Exact whatever another worker recorded meanwhile: the database says how long it has failed,
# by its own clock, which wrote failing_since.
DISABLE_FAILING = Statement(
    update(webhook_endpoints)
    .where(BY_ID, c.enabled, c.failing_since <= Now("cutoff", later=True))
    .values(enabled=false(), disabled_reason=bindparam("reason"))
)


def for_worker(cursor):
    """Every endpoint as an Endpoint, its times read, in the cursor's transaction; an overlap
    of a replaced secret that has ended is None."""
    FOR_WORKER.execute(cursor)
    return FOR_WORKER.rows(cursor)


def lock(db, cursor, writes, reads=()):
    """Lock these endpoints' rows in the cursor's transaction, by ascending id, before any
    delivery row: for update those in writes, for share the others in reads (claims, which a
    disable must wait for; two workers claim side by side). Every row once, at the strength it
    needs, in the order of the API too: no two transactions ever wait for each other in a
    circle. The ids held for update (on SQLite, whose write transaction holds the whole
    database, every one)."""
    if db.is_sqlite:
        return set(writes) | set(reads)
    for endpoint_id in sorted(set(writes) | set(reads)):
        statement = LOCK if endpoint_id in writes else SHARE
        statement.execute(cursor, {"id": endpoint_id})
    return set(writes)


def settle_strays(db, cursor, endpoint_ids):
    """Fail the pending deliveries of those endpoints that are disabled, and delete every
    delivery of those deleted, in the cursor's transaction, the endpoints locked first: rows a
    fan-out wrote from a read made before a PATCH or a DELETE committed (PostgreSQL)."""
    lock(db, cursor, endpoint_ids)
    for endpoint_id in sorted(endpoint_ids):
        STATE.execute(cursor, {"id": endpoint_id})
        row = STATE.row(cursor)
        if row is None:
            endpoint_log.delete(cursor, endpoint_id)
        elif not row.enabled:
            endpoint_log.fail_disabled(cursor, endpoint_id, row.disabled_reason)


def mark_failing(cursor, endpoint_id):
    """Note that the endpoint's attempts began failing now, by the database's clock, unless
    they had already."""
    MARK_FAILING.execute(cursor, {"id": endpoint_id})


def clear_failing(cursor, endpoint_id):
    """Note that the endpoint's attempts succeed again."""
    CLEAR_FAILING.execute(cursor, {"id": endpoint_id})


def disable_failing(cursor, endpoint_id, seconds):
    """Disable the endpoint if it is enabled and has failed for seconds or more by the
    database's clock, and fail its pending deliveries; whether it was disabled. The caller
    records the new state."""
    values = {"id": endpoint_id, "reason": DISABLED_FAILING, "cutoff": -seconds}
    DISABLE_FAILING.execute(cursor, values)
    if cursor.rowcount != 1:
        return False
    endpoint_log.fail_disabled(cursor, endpoint_id, DISABLED_FAILING)
    return True
