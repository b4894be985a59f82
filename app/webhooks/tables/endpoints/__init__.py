"""The webhook_endpoints table, receivers registered through the API, and its statements: the
API's here, a secret's rotation in rotation.py, the worker's in rounds.py; the timeline of each
(its changes, each from when), in timelines.py."""

import enum

from sqlalchemy import (
    Boolean,
    Column,
    Integer,
    String,
    Table,
    Text,
    bindparam,
    false,
    func,
    insert,
    null,
    select,
    true,
)

from ....database import Now, Statement, metadata
from ....database.column_types import EnumText, JSONText, UTCDateTime
from ...payloads import PLANT, Payload
from ..deliveries import endpoint_log
from . import timelines

# Wherever the endpoints' table is known, so is the table their writes count in.
from .serial import webhook_endpoint_changes as webhook_endpoint_changes
from .timelines import webhook_endpoint_timelines

ID_LENGTH = 64


class DisabledReason(enum.StrEnum):
    """Why an endpoint was disabled, as its disabled_reason column keeps it and the API says it."""

    BY_API = "disabled through the API"
    GONE = "the endpoint answered 410 Gone"
    FAILING = "every attempt failed for PLANTSTORE_WEBHOOK_DISABLE_AFTER seconds"


DISABLED_BY_API, DISABLED_GONE, DISABLED_FAILING = DisabledReason

webhook_endpoints = Table(
    "webhook_endpoints",
    metadata,
    Column("id", String(ID_LENGTH), primary_key=True),
    Column("url", Text, nullable=False),
    Column("description", String(255), nullable=False),
    # A JSON array of event types: read whole, by the API and by the fan-out (timelines.py).
    Column("events", JSONText, nullable=False),
    Column("enabled", Boolean, nullable=False),
    Column("disabled_reason", EnumText(DisabledReason)),
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
    # The most attempts a second it gets, over every worker (None: no limit), and the earliest
    # time, in the database's clock, that the next one may begin (throttles.py).
    Column("throttle_rate", Integer),
    Column("throttle_next", UTCDateTime),
    # The body its deliveries carry (payloads.py); those registered before it existed keep plant.
    Column("payload", EnumText(Payload, String(10)), nullable=False, server_default=PLANT.value),
)


def _by_id():
    return webhook_endpoints.c.id == bindparam("id")


c = webhook_endpoints.c
# What an answer never shows of an endpoint: its secrets, and the worker's own marks.
UNSHOWN = {
    "secret",
    "previous_secret",
    "previous_until",
    "older_secret",
    "older_until",
    "failing_since",
    "throttle_next",
}
# What an answer shows of an endpoint: every other column, a new setting's too.
SHOWN = tuple(column for column in c if column.key not in UNSHOWN)
# Registrations are rare: counting under a table lock makes the limit exact across hosts.
LOCK = "LOCK TABLE webhook_endpoints IN SHARE ROW EXCLUSIVE MODE"
COUNT = Statement(select(func.count().label("count")).select_from(webhook_endpoints))
# An endpoint as shown, a dict of its shown columns.
SELECT_ONE = Statement(select(*SHOWN).where(_by_id()), record=dict)
SELECT_PAGE = Statement(
    select(*SHOWN).where(c.id > bindparam("after")).order_by(c.id).limit(bindparam("limit")),
    record=dict,
)
DELETE = Statement(webhook_endpoints.delete().where(_by_id()))
DISABLE = Statement(
    webhook_endpoints.update()
    .where(_by_id(), c.enabled)
    .values(enabled=false(), disabled_reason=bindparam("reason"))
)
ENABLE = Statement(
    webhook_endpoints.update()
    .where(_by_id())
    .values(enabled=true(), disabled_reason=null(), failing_since=null())
)
RATES = Statement(select(c.id, c.throttle_rate).order_by(c.id), "Rate")
# The endpoint's timeline entry: it as it now is, from now, in the transaction that changed it
# (which holds its row): what the fan-out of an event written from then on goes by (timelines.py).
EXTEND_TIMELINE = Statement(
    insert(webhook_endpoint_timelines).from_select(
        ["endpoint_id", "since", "enabled", "events"],
        select(c.id, Now(), c.enabled, c.events).where(_by_id()),
    )
)
# Whether the endpoint takes deliveries. PostgreSQL holds its row until the transaction ends, so
# that a disable (which fails pending deliveries) and a resend wait for each other; SQLite's
# write transaction holds the whole database already (and renders no FOR SHARE).
ENABLED = Statement(select(c.enabled).where(_by_id()).with_for_update(read=True))
# Each set of columns a create or a PATCH sets, compiled once.
_SETTING = {}


def _setting(build, columns):
    key = (build, columns)
    statement = _SETTING.get(key)
    if statement is None:
        values = {column: bindparam(column) for column in columns}
        statement = _SETTING[key] = Statement(build(values))
    return statement


def _insert(values):
    return webhook_endpoints.insert().values({**values, "created_at": Now()})


def _change(values):
    return webhook_endpoints.update().where(_by_id()).values(values)


class TooMany(Exception):
    """There are PLANTSTORE_WEBHOOK_MAX_ENDPOINTS endpoints already."""


def create(db, endpoint, sealed_secret, most):
    """Store a new endpoint (a dict of id, url, description, events and enabled) with its sealed
    secret; TooMany when most exist already. The endpoint as shown."""
    row = {
        **endpoint,
        "disabled_reason": None if endpoint["enabled"] else DISABLED_BY_API,
        "secret": sealed_secret,
    }
    with db.transaction() as cursor:
        if not db.is_sqlite:  # SQLite's write lock is held already
            cursor.execute(LOCK)
        COUNT.execute(cursor)
        if COUNT.value(cursor) >= most:
            raise TooMany(most)
        # Stamped once it holds the write lock, as every event it may take is stamped.
        _setting(_insert, tuple(row)).execute(cursor, row)
        extend_timeline(cursor, row["id"])
        SELECT_ONE.execute(cursor, row)
        return SELECT_ONE.row(cursor)


def get(db, endpoint_id):
    """The endpoint with this id as shown, or None."""
    with db.cursor() as cursor:
        SELECT_ONE.execute(cursor, {"id": endpoint_id})
        return SELECT_ONE.row(cursor)


def page(db, after, limit):
    """Up to limit endpoints with ids above after ("": from the first), by id; and whether
    more remain."""
    with db.cursor() as cursor:
        SELECT_PAGE.execute(cursor, {"after": after, "limit": limit + 1})
        rows = SELECT_PAGE.rows(cursor)
    return rows[:limit], len(rows) > limit


def update(db, endpoint_id, changes):
    """Apply changes (any of the settings WebhookEndpointChangeSchema takes); the endpoint as
    it now is, or None when there is none. Disabling fails its pending deliveries in the same
    transaction; a new throttle_rate paces the next claim, pending deliveries too."""
    columns = {key: value for key, value in changes.items() if key != "enabled"}
    with db.transaction() as cursor:
        if columns:
            statement = _setting(_change, tuple(sorted(columns)))
            statement.execute(cursor, {**columns, "id": endpoint_id})
        if changes.get("enabled") is False:
            disable(cursor, endpoint_id, DISABLED_BY_API)
        elif changes.get("enabled") is True:
            ENABLE.execute(cursor, {"id": endpoint_id})
        if "events" in changes or "enabled" in changes:
            # Stamped last, once every lock is held: an event committed before is judged by
            # the entry before; on SQLite the write lock orders the two stamps as the commits.
            extend_timeline(cursor, endpoint_id)
        SELECT_ONE.execute(cursor, {"id": endpoint_id})
        return SELECT_ONE.row(cursor)


def extend_timeline(cursor, endpoint_id):
    """Remember the endpoint's enabled and events as they now are, from now by the database's
    clock, in the cursor's transaction, after a change of either."""
    EXTEND_TIMELINE.execute(cursor, {"id": endpoint_id})


def disable(cursor, endpoint_id, reason):
    """Disable an enabled endpoint in the cursor's transaction and fail its pending deliveries,
    so that `recover` can send them once it is enabled again; whether it was enabled. The
    caller extends the timeline (extend_timeline)."""
    DISABLE.execute(cursor, {"id": endpoint_id, "reason": reason})
    if cursor.rowcount != 1:
        return False
    endpoint_log.fail_disabled(cursor, endpoint_id, reason)
    return True


def delete(db, endpoint_id):
    """Delete the endpoint, its timeline and every delivery to it; False if there was none."""
    with db.transaction() as cursor:
        DELETE.execute(cursor, {"id": endpoint_id})
        if cursor.rowcount != 1:
            return False
        timelines.forget(cursor, endpoint_id)
        endpoint_log.delete(cursor, endpoint_id)
        return True


def enabled(cursor, endpoint_id):
    """Whether the endpoint is enabled, in the cursor's transaction, which holds its row until
    it ends; None when there is no such endpoint."""
    ENABLED.execute(cursor, {"id": endpoint_id})
    return ENABLED.value(cursor)


def throttle_rates(db):
    """{id: its throttle_rate, None when it has none} of every endpoint."""
    with db.cursor() as cursor:
        RATES.execute(cursor)
        return {row.id: row.throttle_rate for row in RATES.rows(cursor)}
