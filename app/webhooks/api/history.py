"""An endpoint's delivery log and its SQL: the deliveries newest first, a page at a time, and
sending them again (one, or every failed one since a time) with fresh attempts."""

import enum

from ...database import driver_sql, utcnow
from ..tables.deliveries.queue import PENDING

SHOWN = (
    "id, event, status, attempts, created_at, last_attempt_at, next_attempt_at, "
    "response_status, last_error"
)
# Whether the endpoint takes deliveries. PostgreSQL holds its row until the transaction ends, so
# that a disable (which fails pending deliveries) and a resend wait for each other; SQLite's
# write transaction holds the whole database already.
SELECT_ENABLED = "SELECT enabled FROM webhook_endpoints WHERE id = :id"
ENABLED = {
    "sqlite": driver_sql(SELECT_ENABLED)["sqlite"],
    "postgresql": driver_sql(SELECT_ENABLED + " FOR SHARE")["postgresql"],
}
AGAIN = (
    "UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = :now, "
    "claimed_until = NULL, last_error = NULL WHERE receiver = :receiver"
)
RESEND = driver_sql(AGAIN + " AND id = :id")
RECOVER = driver_sql(AGAIN + " AND status = 'failed' AND created_at >= :since")


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


class Refused(enum.Enum):
    """Why deliveries were not sent again."""

    NO_ENDPOINT = "there is no such endpoint"
    DISABLED = "the endpoint is disabled"
    NO_DELIVERY = "the endpoint has no such delivery"


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


def resend(db, endpoint_id, delivery_id):
    """Give one delivery of the endpoint, whatever its status, a fresh set of attempts from
    now, under the same id. None, or why not (Refused)."""
    return _again(db, endpoint_id, RESEND, {"id": delivery_id}, one=True)


def recover(db, endpoint_id, since):
    """Give every failed delivery of the endpoint created at since or later a fresh set of
    attempts from now. None, or why not (Refused)."""
    return _again(db, endpoint_id, RECOVER, {"since": db.bind_time(since)})


def _again(db, endpoint_id, sql, values, one=False):
    with db.transaction() as cursor:
        cursor.execute(ENABLED[db.dialect], {"id": endpoint_id})
        row = cursor.fetchone()
        if row is None:
            return Refused.NO_ENDPOINT
        if not row[0]:
            return Refused.DISABLED
        now = db.bind_time(utcnow())
        cursor.execute(sql[db.dialect], {**values, "receiver": endpoint_id, "now": now})
        if one and cursor.rowcount != 1:
            return Refused.NO_DELIVERY
    return None
