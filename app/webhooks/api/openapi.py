"""The ``webhooks`` section of the OpenAPI document: what a receiver of each event gets."""

from ...apidoc import example

EVENT_HEADER = {"description": "The kind of event."}
HEADERS = {
    "X-Plantstore-Delivery": {
        "description": "The id of this delivery, the same on every retry of it: a receiver "
        "that has seen it already can ignore the repeat.",
        "schema": {"type": "string", "examples": ["5f0c6e2b9d3a4b1e8c7d6a5b4c3d2e1f"]},
    },
    "Plantstore-Event-Id": {
        "description": "The id of the event this delivery announces, as the events feed (GET "
        "/events) shows it: a receiver that also reads the feed knows what it has seen.",
        "schema": {"type": "string", "examples": ["ev_0_42"]},
    },
    "X-Plantstore-Signature": {
        "description": "`sha256=` and the hex HMAC-SHA256 of the exact body bytes, keyed by "
        "PLANTSTORE_WEBHOOK_SECRET. Compute it over the raw body, before parsing, and compare "
        "in constant time.",
        "schema": {"type": "string", "pattern": "^sha256=[0-9a-f]{64}$"},
    },
    "webhook-id": {
        "description": "Standard Webhooks: the delivery id, the same as X-Plantstore-Delivery.",
        "schema": {"type": "string", "examples": ["5f0c6e2b9d3a4b1e8c7d6a5b4c3d2e1f"]},
    },
    "webhook-timestamp": {
        "description": "Standard Webhooks: when this attempt was sent, in Unix seconds. It is "
        "signed: a receiver refuses a delivery whose time is too far from its own clock, so a "
        "captured delivery cannot be replayed later.",
        "schema": {"type": "string", "pattern": "^[0-9]+$", "examples": ["1795000000"]},
    },
    "webhook-signature": {
        "description": "Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of "
        '"{webhook-id}.{webhook-timestamp}.{body}", keyed by the UTF-8 bytes of '
        "PLANTSTORE_WEBHOOK_SECRET. A Standard Webhooks library checks it, given "
        "`whsec_` and the base64 of the secret (`flask --app wsgi webhooks secret` prints it).",
        "schema": {"type": "string", "pattern": "^v1,[A-Za-z0-9+/]{43}=$"},
    },
}


# How every event is delivered, whatever it announces.
DELIVERY = (
    "Delivery is at least once: any answer but a 2xx, a refused connection or a timeout is "
    "retried with exponential backoff and jitter, up to the configured number of attempts."
)
RESPONSES = {
    "2XX": {"description": "Any 2xx answer ends the delivery; its body is ignored."},
    "4XX": {"description": "Not taken: the delivery is retried later."},
    "5XX": {"description": "Not taken: the delivery is retried later."},
}


def webhooks(event_types):
    """The webhooks section: one POST per event type (an EventType), with its body's schema
    referred to by name (the document declares it)."""
    names = [event_type.name for event_type in event_types]
    return {event_type.name: {"post": _operation(event_type, names)} for event_type in event_types}


def _operation(event_type, names):
    kind = {**EVENT_HEADER, "schema": {"type": "string", "enum": names}}
    headers = {"X-Plantstore-Event": kind, **HEADERS}
    schema = event_type.body.__name__.removesuffix("Schema")
    return {
        "summary": event_type.summary,
        "description": f"{event_type.description} {DELIVERY}",
        "operationId": event_type.operation_id,
        "parameters": [
            {"in": "header", "name": name, "required": True, **header}
            for name, header in headers.items()
        ],
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"$ref": f"#/components/schemas/{schema}"},
                    "example": example(event_type.body),
                }
            },
        },
        "responses": RESPONSES,
        "security": [],
    }
