"""Events: what a feature announces, inside its own transaction, to whoever delivers them.

A feature declares which event types it has (``EventType``, ``declare``) and announces each
change with the statement that makes it (``Announcing``), so that both are kept or neither. The
delivering side (the webhooks feature) plugs its ``Outbox`` in with ``set_outbox``.

Every change is announced, whether or not anybody receives it: the events are also the feed
that clients read (GET /events).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from flask import current_app

from .database import as_dict, driver_sql, per_backend

# Where the app keeps its outbox, and the event types its features declared.
OUTBOX = "plantstore.outbox"
TYPES = "plantstore.event_types"


@dataclass(frozen=True)
class EventType:
    """One kind of event: its name, what it means, the marshmallow schema of its body, and
    whether the operator's receivers (PLANTSTORE_WEBHOOK_URLS) get it too."""

    name: str
    summary: str
    description: str
    operation_id: str
    body: type
    operator: bool = False


class Outbox(Protocol):
    """What events are announced to."""

    def publish(self, cursor: Any, event_type: EventType, body: dict) -> None:
        """Write an event of event_type with body in the cursor's transaction."""


class Announcing:
    """A feature's Core statement on one row that announces an event of event_type when it
    changes that row: an INSERT, UPDATE or DELETE with a RETURNING list (a row returned says
    the row changed), or {dialect name: statement} where the backends' constructs differ."""

    def __init__(self, event_type: EventType, statement):
        self.event_type = event_type
        statements = per_backend(statement)
        self.sql = driver_sql(statements)
        # Every backend's statement returns the same columns: the feature's own, by name.
        self.record = as_dict(statements["sqlite"])

    def run(self, cursor, dialect: str, values: dict, outbox: Outbox, body: Callable):
        """Execute the statement in the cursor's transaction; the row it returned as a dict, or
        None when it returned none. When it returned one, publish body(row) in the same
        transaction."""
        cursor.execute(self.sql[dialect], values)
        rows = cursor.fetchall()  # to the end: SQLite finishes a RETURNING statement there
        if not rows:
            return None
        row = self.record(rows[0])
        outbox.publish(cursor, self.event_type, body(row))
        return row


def declare(app, event_types):
    """Add a feature's EventTypes to those of app."""
    app.extensions.setdefault(TYPES, {}).update((each.name, each) for each in event_types)


def types(app):
    """{name: EventType} of every event app's features declared, in the order declared."""
    return app.extensions.get(TYPES, {})


def set_outbox(app, outbox: Outbox):
    """Announce app's events to outbox."""
    app.extensions[OUTBOX] = outbox


def outbox() -> Outbox:
    """The current app's outbox."""
    return current_app.extensions[OUTBOX]
