"""An endpoint's deliveries: its log, newest first, a page at a time; sending them again (one,
or every failed one since a time) with fresh attempts; failing the pending ones of an endpoint
disabled, and deleting them all with the endpoint."""

from ....database import driver_sql
from . import PENDING

SHOWN = (
    "id, event, status, attempts, created_at, last_attempt_at, next_attempt_at, "
    "response_status, last_error"
)
# A fresh set of attempts from now, under the same id: completed by the deliveries it is for.
# A live claim is kept: its attempt in flight ends first (queue.RECORD), never beside another.
AGAIN = (
    "UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = :now, "
    "claimed_until = CASE WHEN claimed_until < :now THEN NULL ELSE claimed_until END, "
    "last_error = NULL WHERE "
)
RESEND = driver_sql(AGAIN + "receiver = :receiver AND id = :id")
RECOVER = driver_sql(AGAIN + "receiver = :receiver AND status = 'failed' AND created_at >= :since")
FAIL_PENDING = driver_sql(
    "UPDATE deliveries SET status = 'failed', claimed_until = NULL, last_error = :error "
    "WHERE receiver = :id AND status = 'pending'"
)
DELETE = driver_sql("DELETE FROM deliveries WHERE receiver = :id")


def _page_sql(filtered, paged):
    # Newest first by (created_at, id); the first condition on created_at lets the index
    # deliveries_receiver_created seek to the page.
    where = "receiver = :receiver"
    if filtered:
        where += " AND status = :status"
    if paged:
        where += " AND created_at <= :at AND (created_at < :at OR id < :id)"
    return driver_sql(
        f"SELECT {SHOWN} FROM deliveries WHERE {where} "
        "ORDER BY created_at DESC, id DESC LIMIT :limit"
    )


PAGES = {(filtered, paged): _page_sql(filtered, paged) for filtered in (0, 1) for paged in (0, 1)}


def page(db, endpoint_id, status, before, limit):
    """Up to limit of the endpoint's deliveries, newest first: those in status (None: any),
    older than before ((created_at, id); None: from the newest). And whether more remain."""
    values = {"receiver": endpoint_id, "status": status, "limit": limit + 1}
    if before is not None:
        values.update(at=db.bind_time(before[0]), id=before[1])
    sql = PAGES[(status is not None, before is not None)][db.dialect]
    with db.cursor() as cursor:
        cursor.execute(sql, values)
        rows = [_shown(db, row) for row in cursor.fetchall()]
    return rows[:limit], len(rows) > limit


def _shown(db, row):
    delivery_id, event, status, attempts, created_at, last_at, next_at, response, error = row
    return {
        "id": delivery_id,
        "event": event,
        "status": status,
        "attempts": attempts,
        "created_at": db.read_time(created_at),
        "last_attempt_at": db.read_time(last_at) if last_at is not None else None,
        # A delivered or failed row keeps a time that no longer means anything.
        "next_attempt_at": db.read_time(next_at) if status == PENDING else None,
        "response_status": response,
        "last_error": error,
    }


def resend(db, cursor, endpoint_id, delivery_id, now):
    """Give one delivery of the endpoint, whatever its status, a fresh set of attempts from
    now, in the cursor's transaction; whether there was one."""
    values = {"receiver": endpoint_id, "id": delivery_id, "now": db.bind_time(now)}
    cursor.execute(RESEND[db.dialect], values)
    return cursor.rowcount == 1


def recover(db, cursor, endpoint_id, since, now):
    """Give every failed delivery of the endpoint created at since or later a fresh set of
    attempts from now, in the cursor's transaction."""
    values = {"receiver": endpoint_id, "since": db.bind_time(since), "now": db.bind_time(now)}
    cursor.execute(RECOVER[db.dialect], values)


def fail_disabled(db, cursor, endpoint_id, reason):
    """Fail the pending deliveries of an endpoint disabled for reason, in the cursor's
    transaction, so that a recover can send them once it is enabled again."""
    fail_pending(db, cursor, endpoint_id, f"endpoint disabled: {reason}")


def fail_pending(db, cursor, receiver, error):
    """Fail every pending delivery to receiver with error, in the cursor's transaction; how
    many."""
    cursor.execute(FAIL_PENDING[db.dialect], {"id": receiver, "error": error})
    return cursor.rowcount


def delete(db, cursor, endpoint_id):
    """Delete every delivery to the endpoint, in the cursor's transaction."""
    cursor.execute(DELETE[db.dialect], {"id": endpoint_id})
