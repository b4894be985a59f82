"""The webhook_endpoints table, receivers registered through the API, and its statements: the
API's here, the worker's in worker_view.py; every state each one has been in, in history.py."""

import json

from sqlalchemy import Boolean, Column, String, Table, Text

from ....database import driver_sql, metadata, utcnow
from ....database.sql import UTCDateTime
from ..deliveries import log
from . import history

ID_LENGTH = 64
# Why an endpoint was disabled, as disabled_reason says it.
DISABLED_BY_API = "disabled through the API"
DISABLED_GONE = "the endpoint answered 410 Gone"
DISABLED_FAILING = "every attempt failed for PLANTSTORE_WEBHOOK_DISABLE_AFTER seconds"

webhook_endpoints = Table(
    "webhook_endpoints",
    metadata,
    Column("id", String(ID_LENGTH), primary_key=True),
    Column("url", Text, nullable=False),
    Column("description", String(255), nullable=False),
    # A JSON array of event types: a subscription is one LIKE on it, no table of its own.
    Column("events", Text, nullable=False),
    Column("enabled", Boolean, nullable=False),
    Column("disabled_reason", Text),
    # The first failed attempt since the last success: when it is older than
    # PLANTSTORE_WEBHOOK_DISABLE_AFTER, the next failure disables the endpoint.
    Column("failing_since", UTCDateTime),
    # Sealed by keys.Keyring; the previous secret still signs until previous_until, and the one
    # before it until older_until: at most three sign at once.
    Column("secret", Text, nullable=False),
    Column("previous_secret", Text),
    Column("previous_until", UTCDateTime),
    Column("older_secret", Text),
    Column("older_until", UTCDateTime),
    Column("created_at", UTCDateTime, nullable=False),
)

SHOWN = "id, url, description, events, enabled, disabled_reason, created_at"
INSERT = driver_sql(
    "INSERT INTO webhook_endpoints (id, url, description, events, enabled, disabled_reason, "
    "secret, created_at) VALUES (:id, :url, :description, :events, :enabled, "
    ":disabled_reason, :secret, :created_at)"
)
# Registrations are rare: counting under a table lock makes the limit exact across hosts.
LOCK = "LOCK TABLE webhook_endpoints IN SHARE ROW EXCLUSIVE MODE"
COUNT = driver_sql("SELECT COUNT(*) FROM webhook_endpoints")
SELECT_ONE = driver_sql(f"SELECT {SHOWN} FROM webhook_endpoints WHERE id = :id")
SELECT_PAGE = driver_sql(
    f"SELECT {SHOWN} FROM webhook_endpoints WHERE id > :after ORDER BY id LIMIT :limit"
)
DELETE = driver_sql("DELETE FROM webhook_endpoints WHERE id = :id")
# The previous secret, while its own overlap lasts, becomes the older one; an older one still in
# its overlap is dropped, the oldest of three.
ROTATE = driver_sql(
    "UPDATE webhook_endpoints SET "
    "older_secret = CASE WHEN previous_until > :now THEN previous_secret END, "
    "older_until = CASE WHEN previous_until > :now THEN previous_until END, "
    "previous_secret = secret, previous_until = :until, secret = :secret WHERE id = :id"
)
DISABLE = driver_sql(
    "UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = :reason "
    "WHERE id = :id AND enabled"
)
ENABLE = driver_sql(
    "UPDATE webhook_endpoints SET enabled = TRUE, disabled_reason = NULL, "
    "failing_since = NULL WHERE id = :id"
)
IDS = driver_sql("SELECT id FROM webhook_endpoints ORDER BY id")
# Whether the endpoint takes deliveries. PostgreSQL holds its row until the transaction ends, so
# that a disable (which fails pending deliveries) and a resend wait for each other; SQLite's
# write transaction holds the whole database already.
SELECT_ENABLED = "SELECT enabled FROM webhook_endpoints WHERE id = :id"
ENABLED = {
    "sqlite": driver_sql(SELECT_ENABLED)["sqlite"],
    "postgresql": driver_sql(SELECT_ENABLED + " FOR SHARE")["postgresql"],
}


def subscribed(event_type):
    """SQL that is true when an enabled endpoint is subscribed to event_type (a trusted name)."""
    return (
        "EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled "
        f"AND events LIKE '{_pattern(event_type)}')"
    )


def _pattern(event_type):
    return f'%"{event_type}"%'


def _shown(db, row):
    endpoint_id, url, description, events, enabled, reason, created_at = row
    return {
        "id": endpoint_id,
        "url": url,
        "description": description,
        "events": json.loads(events),
        "enabled": bool(enabled),
        "disabled_reason": reason,
        "created_at": db.read_time(created_at),
    }


class TooMany(Exception):
    """There are PLANTSTORE_WEBHOOK_MAX_ENDPOINTS endpoints already."""


def create(db, endpoint, sealed_secret, most):
    """Store a new endpoint (a dict of id, url, description, events and enabled) with its sealed
    secret; TooMany when most exist already. The endpoint as shown."""
    row = {
        **endpoint,
        "events": json.dumps(endpoint["events"]),
        "disabled_reason": None if endpoint["enabled"] else DISABLED_BY_API,
        "secret": sealed_secret,
    }
    with db.transaction() as cursor:
        if not db.is_sqlite:  # SQLite's write lock is held already
            cursor.execute(LOCK)
        cursor.execute(COUNT[db.dialect])
        if cursor.fetchone()[0] >= most:
            raise TooMany(most)
        # Made from the time it holds the write lock, as every event it may take is stamped.
        now = utcnow()
        cursor.execute(INSERT[db.dialect], {**row, "created_at": db.bind_time(now)})
        history.record(db, cursor, row["id"], now)
        cursor.execute(SELECT_ONE[db.dialect], row)
        return _shown(db, cursor.fetchone())


def get(db, endpoint_id):
    """The endpoint with this id as shown, or None."""
    with db.cursor() as cursor:
        cursor.execute(SELECT_ONE[db.dialect], {"id": endpoint_id})
        row = cursor.fetchone()
    return _shown(db, row) if row else None


def page(db, after, limit):
    """Up to limit endpoints with ids above after ("": from the first), by id; and whether
    more remain."""
    with db.cursor() as cursor:
        cursor.execute(SELECT_PAGE[db.dialect], {"after": after, "limit": limit + 1})
        rows = [_shown(db, row) for row in cursor.fetchall()]
    return rows[:limit], len(rows) > limit


def update(db, endpoint_id, changes):
    """Apply changes (any of url, description, events, enabled); the endpoint as it now is, or
    None when there is none. Disabling fails its pending deliveries in the same transaction."""
    columns = {key: value for key, value in changes.items() if key != "enabled"}
    if "events" in columns:
        columns["events"] = json.dumps(columns["events"])
    with db.transaction() as cursor:
        if columns:
            assignments = ", ".join(f"{column} = :{column}" for column in sorted(columns))
            sql = f"UPDATE webhook_endpoints SET {assignments} WHERE id = :id"
            cursor.execute(driver_sql(sql)[db.dialect], {**columns, "id": endpoint_id})
        if changes.get("enabled") is False:
            disable(db, cursor, endpoint_id, DISABLED_BY_API)
        elif changes.get("enabled") is True:
            cursor.execute(ENABLE[db.dialect], {"id": endpoint_id})
        if "events" in changes or "enabled" in changes:
            # Stamped last, once every lock is held: an event committed before is judged by
            # the state before; on SQLite the write lock orders the two stamps as the commits.
            history.record(db, cursor, endpoint_id, utcnow())
        cursor.execute(SELECT_ONE[db.dialect], {"id": endpoint_id})
        row = cursor.fetchone()
    return _shown(db, row) if row else None


def disable(db, cursor, endpoint_id, reason):
    """Disable an enabled endpoint in the cursor's transaction and fail its pending deliveries,
    so that `recover` can send them once it is enabled again; whether it was enabled. The
    caller records the new state (history.record)."""
    cursor.execute(DISABLE[db.dialect], {"id": endpoint_id, "reason": reason})
    if cursor.rowcount != 1:
        return False
    log.fail_disabled(db, cursor, endpoint_id, reason)
    return True


def delete(db, endpoint_id):
    """Delete the endpoint, its states and every delivery to it; False if there was none."""
    with db.transaction() as cursor:
        cursor.execute(DELETE[db.dialect], {"id": endpoint_id})
        if cursor.rowcount != 1:
            return False
        history.forget(db, cursor, endpoint_id)
        log.delete(db, cursor, endpoint_id)
        return True


def rotate(db, endpoint_id, sealed_secret, previous_until):
    """Sign with a new sealed secret, and with the current one too until previous_until, and
    with the previous one until its own overlap ends; False when there is no such endpoint."""
    values = {
        "id": endpoint_id,
        "secret": sealed_secret,
        "until": db.bind_time(previous_until),
        "now": db.bind_time(utcnow()),
    }
    with db.transaction() as cursor:
        cursor.execute(ROTATE[db.dialect], values)
        return cursor.rowcount == 1


def enabled(db, cursor, endpoint_id):
    """Whether the endpoint is enabled, in the cursor's transaction, which holds its row until
    it ends; None when there is no such endpoint."""
    cursor.execute(ENABLED[db.dialect], {"id": endpoint_id})
    row = cursor.fetchone()
    return None if row is None else bool(row[0])


def ids(db):
    """Every endpoint's id."""
    with db.cursor() as cursor:
        cursor.execute(IDS[db.dialect])
        return [row[0] for row in cursor.fetchall()]
