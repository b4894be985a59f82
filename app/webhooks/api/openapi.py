"""The ``webhooks`` section of the OpenAPI document: what a receiver of each event gets, under
each payload; and the schemas of those bodies, which the document declares as components."""

from ...apidoc import example
from ...events import catalog
from ...events.schemas import EventSchema
from ..payloads import EVENT, PLANT, THIN

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


# Each payload's body, as a named example's summary says it.
FORMATS = {
    PLANT: 'the data alone (payload "plant")',
    EVENT: 'the Event, as GET /events shows it (payload "event", a new endpoint\'s default)',
    THIN: 'the Event with the plant\'s id alone as its data (payload "thin")',
}
CHOICE = (
    "The body is the one its receiver chose (an endpoint's `payload`): the data alone "
    "(`plant`), the Event as the feed shows it (`event`), or that Event with the plant's id "
    "alone as its data (`thin`)."
)


def webhooks(event_types):
    """The webhooks section: one POST per event type (an EventType), whose body is one of its
    schemas in ``schemas``, referred to by name, with a named example of each."""
    names = [event_type.name for event_type in event_types]
    return {event_type.name: {"post": _operation(event_type, names)} for event_type in event_types}


def schemas(event_types):
    """{name: JSON Schema} of each event type's body under each payload, for the document's
    components. No two allow the same body: none allows a key it does not name."""
    return {
        name: schema for event_type in event_types for name, schema in _bodies(event_type).values()
    }


def _bodies(event_type):
    """{Payload: (component name, schema)} of event_type's body under each payload: the data as
    the event catalog describes it, the feed's Event of that type around it, and that Event
    with the plant's id alone as its data. Each schema has an example."""
    base = event_type.operation_id[0].upper() + event_type.operation_id[1:]
    names = {PLANT: f"{base}Data", EVENT: f"{base}Event", THIN: f"{base}ThinEvent"}
    data = example(event_type.body)
    event = {**example(EventSchema), "type": event_type.name, "data": data}
    thin = catalog.json_schema(event_type.body(only=("id",)))
    found = {
        PLANT: {**catalog.json_schema(event_type.body), "examples": [data]},
        EVENT: _event(event_type, {"$ref": f"#/components/schemas/{names[PLANT]}"}, event),
        THIN: _event(event_type, thin, {**event, "data": {"id": data["id"]}}),
    }
    return {
        payload: (
            names[payload],
            {"description": f"{event_type.name}: {FORMATS[payload]}", **schema},
        )
        for payload, schema in found.items()
    }


def _event(event_type, data, instance):
    # The feed's Event, of this type alone, with this data.
    event = catalog.json_schema(EventSchema)
    kind = {"type": "string", "const": event_type.name}
    properties = {**event["properties"], "type": kind, "data": data}
    return {**event, "properties": properties, "examples": [instance]}


def _operation(event_type, names):
    kind = {**EVENT_HEADER, "schema": {"type": "string", "enum": names}}
    headers = {"X-Plantstore-Event": kind, **HEADERS}
    return {
        "summary": event_type.summary,
        "description": f"{event_type.description} {CHOICE} {DELIVERY}",
        "operationId": event_type.operation_id,
        "parameters": [
            {"in": "header", "name": name, "required": True, **header}
            for name, header in headers.items()
        ],
        "requestBody": {"required": True, "content": {"application/json": _body(event_type)}},
        "responses": RESPONSES,
        "security": [],
    }


def _body(event_type):
    bodies = _bodies(event_type).items()
    return {
        # anyOf, though no two take the same body: Redocly cannot see that the event and thin
        # ones differ inside data, and warns on a oneOf of them.
        "schema": {"anyOf": [{"$ref": f"#/components/schemas/{name}"} for _, (name, _) in bodies]},
        "examples": {
            payload.value: {"summary": FORMATS[payload], "value": schema["examples"][0]}
            for payload, (_, schema) in bodies
        },
    }
