"""Events: what a feature announces, inside its own transaction, to whoever delivers them.

A feature declares which event types it has (``EventType``, ``declare``) and announces each
change with the statement that makes it (``Announcing``), so that both are kept or neither. The
delivering side (the webhooks feature) plugs its ``Outbox`` in with ``set_outbox``.

Asking whether anybody would receive an event costs no statement of its own: the change's own
statement returns the answer as one more column, the outbox's SQL, which ``Announcing`` adds
and reads, so that no feature counts another's columns.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from flask import current_app
from sqlalchemy import literal_column

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

    def wanted(self, event_type: EventType) -> str:
        """An SQL boolean expression, true when somebody would receive an event of event_type."""

    def publish(self, cursor: Any, event_type: EventType, body: dict) -> None:
        """Write an event of event_type with body in the cursor's transaction."""


class Announcing:
    """A feature's Core statement on one row that announces an event of event_type when it
    changes that row: an INSERT, UPDATE or DELETE, with the RETURNING list it wants (or none),
    or {dialect name: statement} where the backends' constructs differ. run() adds the outbox's
    wanted() as the last column, compiled once per backend and per wanted()."""

    def __init__(self, event_type: EventType, statement):
        self.event_type = event_type
        self.statements = per_backend(statement)
        # Every backend's statement returns the same columns: the feature's own, by name.
        self.record = as_dict(next(iter(self.statements.values())))
        self._compiled = {}

    def run(self, cursor, dialect: str, values: dict, outbox: Outbox, body: Callable):
        """Execute the statement in the cursor's transaction; the row it returned as a dict of
        the feature's columns (the added one left out), or None when it returned none. When
        that row says the event is wanted, publish body(row) in the same transaction."""
        wanted = outbox.wanted(self.event_type)
        statement = self._compiled.get(wanted)
        if statement is None:
            statement = self._compiled[wanted] = self._compile(wanted)
        cursor.execute(statement[dialect], values)
        rows = cursor.fetchall()
        if not rows:
            return None
        row = self.record(rows[0])
        if rows[0][-1]:
            outbox.publish(cursor, self.event_type, body(row))
        return row

    def _compile(self, wanted):
        column = literal_column(wanted)
        return driver_sql({name: each.returning(column) for name, each in self.statements.items()})


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
