"""The event types the features declare: what the feed and the webhooks know of an event
besides its body."""

from dataclasses import dataclass

# Where the app keeps the event types its features declared.
TYPES = "plantstore.event_types"


@dataclass(frozen=True)
class EventType:
    """One event type: its name, what it means, the marshmallow schema of its body, and
    whether the operator's webhook receivers (PLANTSTORE_WEBHOOK_URLS) get it too."""

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
    """{name: EventType} of every event app's features declared, in the order declared."""
    return app.extensions.get(TYPES, {})
