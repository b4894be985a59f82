"""Events: what a feature announces, inside its own transaction, to whoever delivers them.

A feature says which event types it has (``EventType``) and publishes each change on the
cursor of the transaction that made it, so that both are kept or neither. The delivering side
(the webhooks feature) plugs its outbox in with ``set_outbox``; with none, nothing is written.
"""

from dataclasses import dataclass

from flask import current_app

# Where the app keeps its outbox.
OUTBOX = "plantstore.outbox"


@dataclass(frozen=True)
class EventType:
    """One kind of event: its name, what it means, and the marshmallow schema of its body."""

    name: str
    summary: str
    description: str
    operation_id: str
    body: type


def set_outbox(app, outbox):
    """Write app's events with outbox.publish(cursor, event type, body dict)."""
    app.extensions[OUTBOX] = outbox


def outbox():
    """The current app's outbox, or None when nothing delivers events."""
    return current_app.extensions.get(OUTBOX)
