"""The endpoints as the worker reads them once a round, and the failures it follows on them:
when an endpoint began failing, and its disabling once it has failed for long enough."""

import datetime
from typing import NamedTuple

from ....database import driver_sql
from ..deliveries import log
from . import DISABLED_FAILING

# What the worker needs of every endpoint, read once a round: to send and judge. The fan-out
# goes by history.py, what each endpoint took when.
FOR_WORKER = driver_sql(
    "SELECT id, url, enabled, failing_since, secret, previous_secret, previous_until, "
    "older_secret, older_until FROM webhook_endpoints"
)
# Taken one row at a time, by ascending id, before any delivery row: the order of the API too.
LOCK = driver_sql("SELECT id FROM webhook_endpoints WHERE id = :id FOR UPDATE")
SHARE = driver_sql("SELECT id FROM webhook_endpoints WHERE id = :id FOR SHARE")
STATE = driver_sql("SELECT enabled, disabled_reason FROM webhook_endpoints WHERE id = :id")
MARK_FAILING = driver_sql(
    "UPDATE webhook_endpoints SET failing_since = :now WHERE id = :id AND failing_since IS NULL"
)
CLEAR_FAILING = driver_sql(
    "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = :id AND failing_since IS NOT NULL"
)
# Exact whatever another worker recorded meanwhile: the database says how long it has failed.
DISABLE_FAILING = driver_sql(
    "UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = :reason "
    "WHERE id = :id AND enabled AND failing_since <= :cutoff"
)


class Endpoint(NamedTuple):
    """An endpoint as the worker sees it: times are datetimes, secrets still sealed."""

    id: str
    url: str
    enabled: bool
    failing_since: datetime.datetime | None
    secret: str
    previous_secret: str | None
    previous_until: datetime.datetime | None
    older_secret: str | None
    older_until: datetime.datetime | None


def for_worker(db, cursor):
    """Every endpoint as an Endpoint, in the cursor's transaction."""
    cursor.execute(FOR_WORKER[db.dialect])
    read = db.read_time
    return [
        Endpoint(
            endpoint_id,
            url,
            bool(enabled),
            read(failing_since),
            secret,
            previous,
            read(until),
            older,
            read(older_until),
        )
        for (
            endpoint_id,
            url,
            enabled,
            failing_since,
            secret,
            previous,
            until,
            older,
            older_until,
        ) in cursor.fetchall()
    ]


def lock(db, cursor, writes, reads=()):
    """Lock these endpoints' rows in the cursor's transaction, by ascending id, before any
    delivery row: for update those in writes, for share the others in reads (claims, which a
    disable must wait for; two workers claim side by side). Every row once, at the strength it
    needs, in the order of the API too: no two transactions ever wait for each other in a
    circle."""
    if db.is_sqlite:  # SQLite's write transaction holds the whole database
        return
    for endpoint_id in sorted(set(writes) | set(reads)):
        statement = LOCK if endpoint_id in writes else SHARE
        cursor.execute(statement[db.dialect], {"id": endpoint_id})


def settle_strays(db, cursor, endpoint_ids):
    """Fail the pending deliveries of those endpoints that are disabled, and delete every
    delivery of those deleted, in the cursor's transaction, the endpoints locked first: rows a
    fan-out wrote from a read made before a PATCH or a DELETE committed (PostgreSQL)."""
    lock(db, cursor, endpoint_ids)
    for endpoint_id in sorted(endpoint_ids):
        cursor.execute(STATE[db.dialect], {"id": endpoint_id})
        row = cursor.fetchone()
        if row is None:
            log.delete(db, cursor, endpoint_id)
        elif not row[0]:
            log.fail_disabled(db, cursor, endpoint_id, row[1])


def mark_failing(db, cursor, endpoint_id, now):
    """Note that the endpoint's attempts began failing at now, unless they had already."""
    cursor.execute(MARK_FAILING[db.dialect], {"id": endpoint_id, "now": db.bind_time(now)})


def clear_failing(db, cursor, endpoint_id):
    """Note that the endpoint's attempts succeed again."""
    cursor.execute(CLEAR_FAILING[db.dialect], {"id": endpoint_id})


def disable_failing(db, cursor, endpoint_id, cutoff):
    """Disable the endpoint if it is enabled and has failed since cutoff or before, and fail
    its pending deliveries; whether it was disabled. The caller records the new state."""
    values = {"id": endpoint_id, "reason": DISABLED_FAILING, "cutoff": db.bind_time(cutoff)}
    cursor.execute(DISABLE_FAILING[db.dialect], values)
    if cursor.rowcount != 1:
        return False
    log.fail_disabled(db, cursor, endpoint_id, DISABLED_FAILING)
    return True
