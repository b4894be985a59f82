"""The fan-out: the worker turns each event into one delivery per receiver, off the request
path, in the transaction that moves the fan-out's place in the feed past the event, and writes
those its windows want already claimed by it."""

from ... import events
from ..tables.deliveries import queue
from ..tables.endpoints import timelines
from ..tables.records import NewDelivery

# The last_error of a delivery to an endpoint disabled between its event and its fan-out.
DISABLED = "endpoint disabled before the event was fanned out"


def waiting(db, cursor, limit):
    """Up to limit of the events after the fan-out's place in the feed, the fan-out held until
    the cursor's transaction ends; none while another worker's round holds it."""
    after = events.cursors.claim_fanout(db, cursor)
    return events.store.page(cursor, after, (), limit)[0] if after is not None else []


def receivers(rows, by_type, urls, operator_types):
    """Every receiver that one of the events rows may go to, by the timelines by_type
    (timelines.Kept.current): the operator's urls for operator_types, and each endpoint that
    ever took one of their types."""
    types = {event.type for event in rows}
    found = set(urls) if types & operator_types else set()
    for event_type in types:
        found.update(endpoint_id for endpoint_id, _ in by_type.get(event_type, ()))
    return found


def fan_out(cursor, rows, by_type, urls, operator_types, wants, until):
    """Turn the events rows (waiting) into one delivery per receiver, in the cursor's
    transaction, and move the fan-out's place in the feed past them; the Deliveries written
    claimed.

    The operator's receivers (urls) get the events of operator_types (names); each endpoint
    gets those it was subscribed to and enabled for when they were written (by_type, its
    timeline as timelines.Kept read it after the events, so that no change committed before
    one of them is missed), failed when it is disabled now. A delivery keeps its event's
    creation time, so that its age counts from the change. Up to wants[receiver] of a
    receiver's are written claimed (Delivery.claimed: leased until until(), a clock.Later read
    at the first claim, their first attempt counted): a claim that costs no statement of its
    own. The caller holds the rows of the endpoints in wants, so that none is disabled before
    the claims commit.
    """
    if not rows:
        return []
    written, claimed, left = [], [], dict(wants)
    for event in rows:
        event_type, body, created_at = event.type, event.body, event.created_at
        receivers = [(url, True) for url in urls] if event_type in operator_types else []
        receivers += _endpoints(by_type.get(event_type, ()), event_type, _moment(event))
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


def _endpoints(subscribed, event_type, at):
    # (endpoint id, whether it is enabled now) of each endpoint that took the event at at.
    return [
        (endpoint_id, timeline.enabled_now)
        for endpoint_id, timeline in subscribed
        if timeline.took(event_type, at)
    ]
