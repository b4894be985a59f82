"""When the worker disables an endpoint: at once after a 410 Gone, or when its attempts have
all failed for PLANTSTORE_WEBHOOK_DISABLE_AFTER seconds and the next one fails too."""

import datetime

from sqlalchemy import BigInteger, Column, String, Table

from ..database import driver_sql, metadata
from . import endpoints

GONE = 410

# Taken one row at a time, by ascending id, before any delivery row: the order of the API too.
LOCK = driver_sql("SELECT id FROM webhook_endpoints WHERE id = :id FOR UPDATE")
MARK_FAILING = driver_sql(
    "UPDATE webhook_endpoints SET failing_since = :now WHERE id = :id AND failing_since IS NULL"
)
CLEAR_FAILING = driver_sql(
    "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = :id AND failing_since IS NOT NULL"
)
# Exact whatever another worker recorded meanwhile: the database says how long it has failed.
DISABLE_FAILING = driver_sql(
    "UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = :reason, "
    "disabled_at = :now WHERE id = :id AND enabled AND failing_since <= :cutoff"
)


def lock(db, cursor, outcomes):
    """Lock the rows of the endpoints that outcomes may write, in the cursor's transaction, by
    ascending id, so that two workers or a worker and a PATCH or DELETE (which lock the
    endpoint, then its deliveries) never wait for each other in a circle."""
    if db.is_sqlite:  # its write transaction holds the whole database already
        return
    ids = sorted(
        {outcome.receiver for outcome in outcomes if endpoints.is_endpoint(outcome.receiver)}
    )
    if ids:
        cursor.executemany(LOCK[db.dialect], [{"id": endpoint_id} for endpoint_id in ids])


def judge(db, cursor, outcomes, now, disable_after, known):
    """Follow each endpoint's failures by the last of its outcomes (Outcomes), in the cursor's
    transaction, and disable those that must be: [(endpoint id, reason)] of those disabled.

    known is {endpoint id: endpoints.Endpoint} as read in this transaction: an endpoint's
    failure time is written only when it changes. Disabling fails the endpoint's pending
    deliveries in the same transaction: no crash can leave an endpoint disabled with
    deliveries still pending.
    """
    last = {
        outcome.receiver: outcome for outcome in outcomes if endpoints.is_endpoint(outcome.receiver)
    }
    disabled = []
    for endpoint_id, outcome in last.items():
        endpoint = known.get(endpoint_id)
        if endpoint is None:  # deleted
            continue
        if outcome.error is None:
            if endpoint.failing_since is not None:
                cursor.execute(CLEAR_FAILING[db.dialect], {"id": endpoint_id})
            continue
        if outcome.response_status == GONE:
            if endpoints.disable(db, cursor, endpoint_id, endpoints.DISABLED_GONE, now):
                disabled.append((endpoint_id, endpoints.DISABLED_GONE, "gone"))
            continue
        since = endpoint.failing_since
        if since is None:
            cursor.execute(MARK_FAILING[db.dialect], {"id": endpoint_id, "now": db.bind_time(now)})
            since = now
        cutoff = now - datetime.timedelta(seconds=disable_after)
        if since <= cutoff and _disable_failing(db, cursor, endpoint_id, now, cutoff):
            disabled.append((endpoint_id, endpoints.DISABLED_FAILING, "failing"))
    for _, _, counted in disabled:
        count_disable(db, cursor, counted)
    return [(endpoint_id, reason) for endpoint_id, reason, _ in disabled]


def _disable_failing(db, cursor, endpoint_id, now, cutoff):
    values = {
        "id": endpoint_id,
        "reason": endpoints.DISABLED_FAILING,
        "now": db.bind_time(now),
        "cutoff": db.bind_time(cutoff),
    }
    cursor.execute(DISABLE_FAILING[db.dialect], values)
    return cursor.rowcount == 1 and endpoints.fail_pending(
        db, cursor, endpoint_id, endpoints.DISABLED_FAILING
    )


# Endpoints the worker disabled, by reason, since the database was made: a counter of /metrics
# that every host's worker adds to.
webhook_disables = Table(
    "webhook_disables",
    metadata,
    Column("reason", String(20), primary_key=True),
    Column("count", BigInteger, nullable=False),
)
COUNT_DISABLE = driver_sql(
    "INSERT INTO webhook_disables (reason, count) VALUES (:reason, 1) "
    "ON CONFLICT (reason) DO UPDATE SET count = webhook_disables.count + 1"
)
DISABLES = driver_sql("SELECT reason, count FROM webhook_disables")


def count_disable(db, cursor, reason):
    """Count one endpoint disabled by the worker for reason ("gone" or "failing")."""
    cursor.execute(COUNT_DISABLE[db.dialect], {"reason": reason})


def disables(db):
    """{reason: endpoints the worker disabled for it}."""
    with db.cursor() as cursor:
        cursor.execute(DISABLES[db.dialect])
        return dict(cursor.fetchall())
