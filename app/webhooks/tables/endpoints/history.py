"""The webhook_endpoint_history table: every state an endpoint has been in (enabled, and its
events) from the time it took it, so that the fan-out sends each event to the endpoints as
they were when it was written, however many changes came before the worker got to it."""

import bisect
import json
from typing import NamedTuple

from sqlalchemy import BigInteger, Boolean, Column, Index, Integer, String, Table, Text

from ....database import driver_sql, metadata
from ....database.sql import UTCDateTime

webhook_endpoint_history = Table(
    "webhook_endpoint_history",
    metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
    Column("endpoint_id", String(64), nullable=False),
    # Stamped inside the change's write transaction, as an event is: on SQLite, after the write
    # lock is held, so that the stamps of changes and events are in their commit order.
    Column("since", UTCDateTime, nullable=False),
    Column("enabled", Boolean, nullable=False),
    # A JSON array of event types, as webhook_endpoints.events.
    Column("events", Text, nullable=False),
    Index("webhook_endpoint_history_endpoint", "endpoint_id", "since"),
)

# The endpoint's row as it now is, in the transaction that changed it (which holds the row).
RECORD = driver_sql(
    "INSERT INTO webhook_endpoint_history (endpoint_id, since, enabled, events) "
    "SELECT id, :now, enabled, events FROM webhook_endpoints WHERE id = :id"
)
EVERY = driver_sql(
    "SELECT endpoint_id, since, enabled, events FROM webhook_endpoint_history "
    "ORDER BY endpoint_id, since, id"
)
DELETE = driver_sql("DELETE FROM webhook_endpoint_history WHERE endpoint_id = :id")
# A state that a later one replaced before horizon decides no event that may still be fanned out.
PRUNE = driver_sql(
    "DELETE FROM webhook_endpoint_history WHERE since < (SELECT MAX(later.since) "
    "FROM webhook_endpoint_history later WHERE later.endpoint_id = "
    "webhook_endpoint_history.endpoint_id AND later.since <= :horizon)"
)


class Timeline(NamedTuple):
    """An endpoint's states by time: since (ascending datetimes), and at each, whether it was
    enabled and the event types it was subscribed to."""

    since: list
    enabled: list
    events: list

    def took(self, event_type, at):
        """Whether an event of event_type written at at goes to the endpoint: it existed, was
        enabled and was subscribed to event_type then."""
        index = bisect.bisect_right(self.since, at) - 1
        return index >= 0 and self.enabled[index] and event_type in self.events[index]

    @property
    def enabled_now(self):
        """Whether the endpoint is enabled, as its last state says."""
        return self.enabled[-1]


def record(db, cursor, endpoint_id, now):
    """Remember the endpoint's enabled and events as they now are, from now, in the cursor's
    transaction, after a change of either."""
    cursor.execute(RECORD[db.dialect], {"id": endpoint_id, "now": db.bind_time(now)})


def timelines(db, cursor):
    """{endpoint id: its Timeline} of every endpoint, in the cursor's transaction."""
    cursor.execute(EVERY[db.dialect])
    found = {}
    for endpoint_id, since, enabled, events in cursor.fetchall():
        timeline = found.setdefault(endpoint_id, Timeline([], [], []))
        timeline.since.append(db.read_time(since))
        timeline.enabled.append(bool(enabled))
        timeline.events.append(frozenset(json.loads(events)))
    return found


def forget(db, cursor, endpoint_id):
    """Delete the endpoint's states, in the cursor's transaction (it is deleted)."""
    cursor.execute(DELETE[db.dialect], {"id": endpoint_id})


def prune(db, horizon):
    """Delete the states that a later one replaced at horizon or before; how many went."""
    with db.transaction() as cursor:
        cursor.execute(PRUNE[db.dialect], {"horizon": db.bind_time(horizon)})
        return cursor.rowcount
