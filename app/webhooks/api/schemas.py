"""The JSON shapes of /webhooks' endpoints: an endpoint, what a create and a change take, and a
new secret (the delivery log's are in delivery_schemas.py, the queries and path ids in
queries.py).

Unlike /plants, a body with an unknown key is refused: a misspelt ``enabeld`` must not leave an
endpoint on while its owner believes it off.
"""

import re
from urllib.parse import urlsplit

from flask import current_app
from marshmallow import Schema, ValidationError, fields, post_load, validate

from ... import events
from ...validation import NO_NUL, TEXT_MAX, StrictBoolean, clean_text
from ..payloads import EVENT, Payload
from ..security import guard
from .queries import EXAMPLE_ID

URL_MAX = 2048
THROTTLE_MIN, THROTTLE_MAX = 1, 10000
# Characters a URL never holds as they are (RFC 3986); urlsplit would drop some silently.
NOT_IN_URL = re.compile(r"[\x00-\x20\x7f]")
# The document's pattern of a url: the service refuses every string it does not match, and some
# that it does (a port out of range, a host that is not a name, an address that is not public).
URL_PATTERN = r"^[Hh][Tt][Tt][Pp][Ss]?://[^\x00-\x20\x7f#]+$"


def _url(value):
    clean_text(value)
    if NOT_IN_URL.search(value):
        raise ValidationError("Must not contain spaces or control characters.")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (a port out of range raises only when read)
    except ValueError:
        raise ValidationError("Not a valid URL.") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValidationError("Must be an absolute http:// or https:// URL with a host.")
    if "#" in value:
        raise ValidationError("Must not have a fragment.")
    try:
        host = guard.host(value)  # as the worker's HTTP client will reach it
        if guard.literal(host) is None:
            host.encode("idna")  # what resolving it will do
    except ValueError:
        raise ValidationError("Not a valid URL: its host is not a valid name.") from None
    if "%" in host:  # RFC 6874: a zone names an interface of the host that connects
        raise ValidationError("Must not name an IPv6 zone: it is an interface of one host.")


def _declared(name):
    declared = events.types(current_app)
    if name not in declared:
        raise ValidationError(f"Must be one of: {', '.join(sorted(declared))}.")


def _every_event_type():
    return sorted(events.types(current_app))


def _url_field(**options):
    return fields.String(
        validate=[validate.Length(max=URL_MAX), _url],
        metadata={
            "description": "Where deliveries are POSTed: an absolute http:// or https:// URL "
            "without a fragment, whose host is, and resolves to, public addresses only",
            "examples": ["https://hooks.example.com/plantstore"],
            "pattern": URL_PATTERN,
        },
        **options,
    )


def _events_field(description="The event types the endpoint gets", **options):
    return fields.List(
        # openapi/ lists the declared types as this field's enum.
        fields.String(validate=_declared, metadata={"event_type": True}),
        validate=validate.Length(min=1, error="Must name at least one event type."),
        metadata={"description": description, "examples": [["plant.created"]]},
        **options,
    )


def _description_field(**options):
    return fields.String(
        validate=[validate.Length(max=TEXT_MAX), clean_text],
        metadata={
            "description": "What the endpoint is for",
            "examples": ["Stock sync"],
            "pattern": NO_NUL,
        },
        **options,
    )


def _enabled_field(**options):
    return StrictBoolean(
        metadata={
            "description": "Whether the endpoint gets events; false fails its pending "
            "deliveries, to be recovered once it is enabled again",
            "examples": [True],
        },
        **options,
    )


def _throttle_rate_field(**options):
    # strict: a JSON integer, not true, 20.0 or "20".
    return fields.Integer(
        strict=True,
        allow_none=True,
        validate=validate.Range(min=THROTTLE_MIN, max=THROTTLE_MAX),
        metadata={
            "description": "The most attempts a second the endpoint gets, retries and resends "
            "included, over every worker and host; null: no limit",
            "examples": [20],
        },
        **options,
    )


def _payload_field(**options):
    return fields.Enum(
        Payload,
        by_value=True,
        metadata={
            # One type for it in the document and the client, wherever it is.
            "component": "WebhookPayload",
            "description": "The body each delivery carries: `plant`, the plant alone; `event`, "
            "the Event as GET /events shows it, its type and place in the feed signed with it; "
            "`thin`, that Event with the plant's id alone as its data. A change holds for every "
            "attempt from then on, a pending delivery's next one and a resend's too",
            "examples": ["event"],
        },
        **options,
    )


class _Events(Schema):
    """Event types given twice are kept once, in the order first given."""

    @post_load
    def _once_each(self, data, **_kwargs):
        if "events" in data:
            data["events"] = list(dict.fromkeys(data["events"]))
        return data


class NewWebhookEndpointSchema(_Events):
    """NewWebhookEndpoint: the body of a create."""

    url = _url_field(required=True)
    events = _events_field(
        "The event types the endpoint gets; by default, every one",
        load_default=_every_event_type,
    )
    description = _description_field(load_default="")
    enabled = _enabled_field(load_default=True)
    throttle_rate = _throttle_rate_field(load_default=None)
    payload = _payload_field(load_default=EVENT)


class WebhookEndpointChangeSchema(_Events):
    """WebhookEndpointChange: the body of a change; every key is optional."""

    url = _url_field()
    events = _events_field()
    description = _description_field()
    enabled = _enabled_field()
    throttle_rate = _throttle_rate_field()
    payload = _payload_field()


class WebhookEndpointSchema(Schema):
    """WebhookEndpoint: a receiver registered through the API, without its secret."""

    id = fields.String(
        required=True,
        metadata={"description": "Assigned by the service; opaque", "examples": [EXAMPLE_ID]},
    )
    url = _url_field(required=True)
    description = _description_field(required=True)
    events = _events_field(required=True)
    enabled = _enabled_field(required=True)
    disabled_reason = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Why it is disabled; null while enabled", "examples": [None]},
    )
    throttle_rate = _throttle_rate_field(required=True)
    payload = _payload_field(required=True)
    created_at = fields.DateTime(
        required=True,
        metadata={"description": "RFC 3339, UTC", "examples": ["2026-01-01T12:00:00+00:00"]},
    )


SECRET = fields.String(
    required=True,
    metadata={
        "description": "Shown this once: `whsec_` and the base64 of the signing key, as a "
        "Standard Webhooks library takes it",
        "examples": ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
    },
)


class NewWebhookSecretSchema(Schema):
    """NewWebhookSecret: the secret a rotation made."""

    secret = SECRET


class CreatedWebhookEndpointSchema(WebhookEndpointSchema):
    """CreatedWebhookEndpoint: the answer of a create, the only one that holds the secret."""

    secret = SECRET
