"""Events: what a feature announces, inside its own transaction, to whoever delivers them.

A feature declares which event types it has (``EventType``, ``declare``) and publishes each
change on the cursor of the transaction that made it, so that both are kept or neither. The
delivering side (the webhooks feature) plugs its outbox in with ``set_outbox``; with none,
nothing is written.

An outbox has two methods: ``wanted(event_type)``, an SQL boolean expression that the change's
own statement returns beside its row (so that asking costs no statement of its own), true when
somebody would receive the event; and ``publish(cursor, event_type, body)``, which writes it.
"""

from dataclasses import dataclass

from flask import current_app

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


def declare(app, event_types):
    """Add a feature's EventTypes to those of app."""
    app.extensions.setdefault(TYPES, {}).update((each.name, each) for each in event_types)


def types(app):
    """{name: EventType} of every event app's features declared."""
    return app.extensions.get(TYPES, {})


def set_outbox(app, outbox):
    """Write app's events with outbox (see the module's docstring)."""
    app.extensions[OUTBOX] = outbox


def outbox():
    """The current app's outbox, or None when nothing delivers events."""
    return current_app.extensions.get(OUTBOX)
