"""The fan-out: the worker turns each event into one delivery per receiver, off the request
path, in the transaction that moves the fan-out's place in the feed past the event, and writes
those its windows want already claimed by it."""

from ... import events
from ..tables.deliveries import queue
from ..tables.endpoints import timelines
from ..tables.records import NewDelivery

# The last_error of a delivery to an endpoint disabled between its event and its fan-out.
DISABLED = "endpoint disabled before the event was fanned out"


def fan_out(db, cursor, urls, operator_types, limit, wants, until):
    """Turn up to limit of the events after the fan-out's place in the feed into one delivery
    per receiver, in the cursor's transaction, and move that place past them; the Deliveries
    written claimed. Another worker's round that holds the place fans out meanwhile: this one
    then fans out nothing.

    The operator's receivers (urls) get the events of operator_types (names); each endpoint
    gets those it was subscribed to and enabled for when they were written (its timeline, read
    after the events, so that no change committed before one of them is missed), failed when it
    is disabled now. A delivery keeps its event's creation time, so that its age counts from
    the change. Up to wants[receiver] of a receiver's are written claimed (Delivery.claimed:
    leased until until(), a clock.Later read at the first claim, their first attempt counted):
    a claim that costs no statement of its own. The caller holds the rows of the endpoints in
    wants, so that none is disabled before the claims commit.
    """
    after = events.cursors.claim_fanout(db, cursor)
    rows, _ = events.store.page(cursor, after, (), limit) if after is not None else ([], None)
    if not rows:
        return []
    by_endpoint = timelines.of_endpoints(cursor).items()
    written, claimed, left = [], [], dict(wants)
    for event in rows:
        event_type, body, created_at = event.type, event.body, event.created_at
        receivers = [(url, True) for url in urls] if event_type in operator_types else []
        receivers += _endpoints(by_endpoint, event_type, _moment(event))
        event_id = events.ids.public_id(event)
        for receiver, enabled in receivers:
            delivery = queue.new(receiver, event_type, body, created_at, event_id)
            if enabled and left.get(receiver, 0) > 0:
                left[receiver] -= 1
                delivery = delivery.claimed(until)
                claimed.append(delivery)
            written.append(NewDelivery(delivery, None if enabled else DISABLED))
    queue.insert(cursor, written)
    events.cursors.move(cursor, events.cursors.FANOUT, rows[-1])
    return claimed


def _moment(event):
    # When the event was written, as the endpoints' timelines are judged by (timelines.py).
    if event.snapshot is not None:
        return timelines.Seen.of(event.epoch, event.snapshot)
    return event.created_at


def _endpoints(by_endpoint, event_type, at):
    # (endpoint id, whether it is enabled now) of each endpoint that took the event at at.
    return [
        (endpoint_id, timeline.enabled_now)
        for endpoint_id, timeline in by_endpoint
        if timeline.took(event_type, at)
    ]
