"""The JSON shapes of an endpoint's delivery log: a Delivery, the query of a page of them, the
body of a recover, and the ids of the paths."""

import datetime
import re

from marshmallow import Schema, fields, validate

from ...validation import IntegerLiteral
from ..tables.deliveries import STATUSES
from .queries import LIMIT, Pattern, endpoint_id_field

DELIVERY_ID = Pattern("^[A-Za-z0-9_-]{1,32}$", error="Not a valid id.")
RFC3339 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
# A page of the log ends above this point: a delivery's creation time, in microseconds since
# the epoch, and its id.
CURSOR = re.compile(r"([0-9]{1,17})\.([A-Za-z0-9_-]{1,32})")
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
EXAMPLE_ID = "5f0c6e2b9d3a4b1e8c7d6a5b4c3d2e1f"
EXAMPLE_TIME = "2026-01-01T12:00:00+00:00"


def cursor(created_at, delivery_id):
    """The `before` that pages on from the delivery with this creation time and id."""
    return f"{(created_at - EPOCH) // datetime.timedelta(microseconds=1)}.{delivery_id}"


class Cursor(fields.String):
    """A `before` cursor, loaded as (creation time, delivery id)."""

    def _deserialize(self, value, attr, data, **kwargs):
        found = CURSOR.fullmatch(super()._deserialize(value, attr, data, **kwargs))
        if found is None:
            raise self.make_error("invalid")
        # 17 digits stay below the year 9999: no overflow.
        return EPOCH + datetime.timedelta(microseconds=int(found[1])), found[2]


class RFC3339Time(fields.AwareDateTime):
    """A time written as RFC 3339 says (a date, a time and its offset), loaded in UTC."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, str) or not RFC3339.fullmatch(value):
            raise self.make_error("invalid", input=value, obj_type=self.OBJ_TYPE)
        try:
            return datetime.datetime.fromisoformat(value.upper()).astimezone(datetime.UTC)
        except (ValueError, OverflowError):
            raise self.make_error("invalid", input=value, obj_type=self.OBJ_TYPE) from None


def _time(description, **options):
    return fields.DateTime(
        required=True, metadata={"description": description, "examples": [EXAMPLE_TIME]}, **options
    )


class DeliverySchema(Schema):
    """Delivery: one event sent, or to be sent, to an endpoint, and how its attempts went."""

    id = fields.String(
        required=True,
        metadata={"description": "The webhook-id the endpoint got", "examples": [EXAMPLE_ID]},
    )
    event = fields.String(
        required=True,
        attribute="event_type",
        metadata={"description": "The event type", "examples": ["plant.created"]},
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(STATUSES),
        metadata={"description": "Where the delivery stands", "examples": ["delivered"]},
    )
    attempts = fields.Integer(
        required=True,
        metadata={"description": "Attempts made since the last (re)send", "examples": [1]},
    )
    created_at = _time("When the event happened; RFC 3339, UTC")
    last_attempt_at = _time("When it was last tried; null before the first try", allow_none=True)
    next_attempt_at = _time("When it is tried next; null unless pending", allow_none=True)
    response_status = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The status of the last answer; null when there was none",
            "examples": [200],
        },
    )
    last_error = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Why the last attempt failed", "examples": [None]},
    )
    response_body = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "The first 1024 bytes of the last answer's body, decoded as UTF-8: "
            "U+FFFD for what does not decode (a character cut at the 1024th byte included) and "
            'for NUL; "" for an empty body, null when there was no answer',
            "examples": ['{"received": true}'],
        },
    )


class RecoverySchema(Schema):
    """Recovery: the body of a recover."""

    since = RFC3339Time(
        required=True,
        metadata={
            "description": "Failed deliveries created at this time or later are sent again "
            "(RFC 3339)",
            "examples": [EXAMPLE_TIME],
        },
    )


class DeliveryListQuerySchema(Schema):
    """The query of GET /webhooks/{id}/deliveries: a page of the log, newest first."""

    status = fields.String(
        validate=validate.OneOf(STATUSES),
        metadata={"description": "Only deliveries in this status", "examples": ["failed"]},
    )
    limit = IntegerLiteral(
        load_default=100,
        validate=LIMIT,
        metadata={"description": "Most deliveries in one page", "default": 100, "examples": [2]},
    )
    before = Cursor(
        error_messages={
            "invalid": "Not a valid cursor: take it from the Link header of the page before."
        },
        metadata={
            "description": "Only deliveries older than this point; the `Link` header of the "
            "page before gives it",
            "pattern": f"^{CURSOR.pattern}$",
            "examples": [f"1767268800000000.{EXAMPLE_ID}"],
        },
    )


class DeliveryIdSchema(Schema):
    """The {id} and {delivery_id} of /webhooks/{id}/deliveries/{delivery_id}."""

    endpoint_id = endpoint_id_field()
    delivery_id = fields.String(
        required=True,
        validate=DELIVERY_ID,
        metadata={"description": "The id of the delivery", "examples": [EXAMPLE_ID]},
    )
