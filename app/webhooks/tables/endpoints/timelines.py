"""The webhook_endpoint_history table: every state an endpoint has been in (enabled, and its
events) from the time it took it, so that the fan-out sends each event to the endpoints as
they were when it was written, however many changes came before the worker got to it."""

import bisect
import json
from typing import NamedTuple

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    String,
    Table,
    Text,
    bindparam,
    delete,
    func,
    select,
)

from ....database import Statement, metadata
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

h = webhook_endpoint_history.c
EVERY = Statement(
    select(h.endpoint_id, h.since, h.enabled, h.events).order_by(h.endpoint_id, h.since, h.id),
    "State",
)
DELETE = Statement(delete(webhook_endpoint_history).where(h.endpoint_id == bindparam("id")))
# A state that a later one replaced before horizon decides no event that may still be fanned out.
_later = webhook_endpoint_history.alias("later")
PRUNE = Statement(
    delete(webhook_endpoint_history).where(
        h.since
        < select(func.max(_later.c.since))
        .where(_later.c.endpoint_id == h.endpoint_id, _later.c.since <= bindparam("horizon"))
        .scalar_subquery()
    )
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


def of_endpoints(db, cursor):
    """{endpoint id: its Timeline} of every endpoint, in the cursor's transaction."""
    cursor.execute(EVERY[db.dialect])
    found = {}
    for state in EVERY.rows(cursor):
        timeline = found.setdefault(state.endpoint_id, Timeline([], [], []))
        timeline.since.append(db.read_time(state.since))
        timeline.enabled.append(bool(state.enabled))
        timeline.events.append(frozenset(json.loads(state.events)))
    return found


def forget(db, cursor, endpoint_id):
    """Delete the endpoint's states, in the cursor's transaction (it is deleted)."""
    cursor.execute(DELETE[db.dialect], {"id": endpoint_id})


def prune(db, horizon):
    """Delete the states that a later one replaced at horizon or before; how many went."""
    with db.transaction() as cursor:
        cursor.execute(PRUNE[db.dialect], {"horizon": db.bind_time(horizon)})
        return cursor.rowcount
