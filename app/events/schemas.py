"""The JSON shapes of the events feed: an Event, and the query of a page of them."""

from flask import current_app
from marshmallow import Schema, ValidationError, fields, validate

from ..validation import IntegerLiteral
from . import declared, ids

EXAMPLE_ID = "ev_745_42"
LIMIT = validate.Range(min=1, max=1000)
NOT_GIVEN = (
    "Not an event id the feed gave: take it from an event, or from the Link header of the page "
    "before."
)


class EventSchema(Schema):
    """Event: one change, as the feed shows it."""

    id = fields.String(
        required=True,
        metadata={
            "description": "Opaque, URL-safe, at most 64 characters: give it as `after` to "
            "read what came after it",
            "pattern": ids.PATTERN,
            "examples": [EXAMPLE_ID],
        },
    )
    type = fields.String(
        required=True,
        metadata={"event_type": True, "examples": ["plant.created"]},
    )
    created_at = fields.DateTime(
        required=True,
        metadata={
            "description": "When the change was made; RFC 3339, UTC",
            "examples": ["2026-01-01T12:00:00+00:00"],
        },
    )
    data = fields.Dict(
        required=True,
        metadata={
            "description": "The body that a webhook delivery of this type carries (see the "
            "webhooks section)",
            "examples": [{"id": 1, "name": "Monstera", "tag": "tropical"}],
        },
    )


class EventId(fields.String):
    """An `after`: the id of an event that the feed gave, kept as it was given."""

    def _deserialize(self, value, attr, data, **kwargs):
        given = super()._deserialize(value, attr, data, **kwargs)
        if ids.parse(given) is None:
            raise self.make_error("invalid")
        return given


class EventTypes(fields.String):
    """Event type names, comma-separated, loaded as a tuple of declared types, each once."""

    def _deserialize(self, value, attr, data, **kwargs):
        names = super()._deserialize(value, attr, data, **kwargs).split(",")
        known = declared.types(current_app)
        if not all(name in known for name in names):
            listed = ", ".join(sorted(known))
            raise ValidationError(f"Must be event types, comma-separated, each one of: {listed}.")
        return tuple(dict.fromkeys(names))


class FeedQuerySchema(Schema):
    """The query of GET /events: a page of at most limit events after the one named by after,
    of the types listed (every type when there is none). Unknown parameters are refused."""

    after = EventId(
        error_messages={"invalid": NOT_GIVEN},
        metadata={
            "description": "Only events after the one with this id; the `Link` header of the "
            "page before gives it. Without it, the feed is read from its start: the oldest "
            "event kept",
            "pattern": ids.PATTERN,
            "examples": [EXAMPLE_ID],
        },
    )
    types = EventTypes(
        metadata={
            # openapi/ writes the pattern of the declared types' names.
            "event_types": True,
            "description": "Only events of these types, comma-separated; every type by default",
            "examples": ["plant.created,plant.deleted"],
        },
    )
    limit = IntegerLiteral(
        load_default=100,
        validate=LIMIT,
        metadata={"description": "Most events in one page", "default": 100, "examples": [2]},
    )
