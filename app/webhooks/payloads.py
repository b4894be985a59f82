"""What a delivery's body is, by its receiver's payload: the event's body alone ("plant", the
seed's), the feed's Event around it ("event"), or that Event with the plant's id alone as its
data ("thin"). Made at each attempt from the delivery's row, so that a change of an endpoint's
payload holds for its next attempt, and a create writes what it wrote before."""

import enum

import orjson


class Payload(enum.StrEnum):
    """A receiver's choice of body, as the endpoint's payload column keeps it and the API says
    it."""

    PLANT = "plant"
    EVENT = "event"
    THIN = "thin"


PLANT, EVENT, THIN = Payload
# Sorted keys, as the feed's answers write them (jsonprovider.OPTIONS): the "event" body is the
# feed's Event, byte for byte.
OPTIONS = orjson.OPT_SORT_KEYS


def body(payload, delivery):
    """The bytes an attempt of delivery (a records.Delivery) sends and signs under payload. A
    delivery written before the events feed has no event to wrap: it carries its plant body."""
    if payload is PLANT or delivery.event_id is None:
        return delivery.body.encode()
    if payload is THIN:
        data = {"id": orjson.loads(delivery.body)["id"]}
    else:
        data = orjson.Fragment(delivery.body)
    event = {
        "created_at": delivery.created_at,
        "data": data,
        "id": delivery.event_id,
        "type": delivery.event_type,
    }
    return orjson.dumps(event, option=OPTIONS)
