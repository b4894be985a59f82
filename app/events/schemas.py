"""The JSON shapes of the events feed: an Event, the query of a page of them, and an entry of
the event catalog."""

from flask import current_app
from marshmallow import Schema, ValidationError, fields, validate

from ..validation import IntegerLiteral
from . import declared, ids

EXAMPLE_ID = "ev_745_42"
LIMIT = validate.Range(min=1, max=1000)
# The JSON Schema draft of the event catalog's schemas, which OpenAPI 3.1 speaks too.
DIALECT = "https://json-schema.org/draft/2020-12/schema"
# A catalog entry's schema, abridged, for the document's example.
DATA_SCHEMA_EXAMPLE = {
    "$schema": DIALECT,
    "type": "object",
    "properties": {"id": {"type": "integer", "format": "int64"}, "name": {"type": "string"}},
    "required": ["id", "name"],
    "additionalProperties": False,
}
NOT_GIVEN = (
    "Not an event id the feed gave: take it from an event, or from the Link header of the page "
    "before."
)


def event_type():
    """A required field that names an event type: the document refers it to EventType."""
    return fields.String(
        required=True, metadata={"event_type": True, "examples": ["plant.created"]}
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
    type = event_type()
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


class CatalogEntrySchema(Schema):
    """CatalogEntry: one event type, as the event catalog (GET /event-types) shows it."""

    type = event_type()
    description = fields.String(
        required=True,
        metadata={
            "description": "What happened, and who is sent the event",
            "examples": ["A plant was created. Sent once a new plant is stored."],
        },
    )
    schema = fields.Dict(
        required=True,
        metadata={
            "description": "The JSON Schema (draft 2020-12) of the type's data, the body that "
            'a delivery under the payload "plant" carries: every event of the type in the '
            "feed validates against it, and it allows no key the service does not send",
            "examples": [DATA_SCHEMA_EXAMPLE],
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
