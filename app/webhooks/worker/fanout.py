"""The fan-out: the worker turns each event into one delivery per receiver, off the request
path, in the transaction that deletes the event."""

import uuid

from ..tables import events
from ..tables.deliveries import FAILED, PENDING, queue

# The last_error of a delivery to an endpoint disabled between its event and its fan-out.
DISABLED = "endpoint disabled before the event was fanned out"


def fan_out(db, cursor, urls, operator_types, subscribed, limit):
    """Turn up to limit of the oldest events into one delivery per receiver, in the cursor's
    transaction, and delete them.

    The operator's receivers (urls) get the events of operator_types (names); each endpoint
    of subscribed (worker_view.Endpoint) gets those it was subscribed to and enabled for when
    they were written, failed when it has been disabled since. A delivery keeps its event's
    creation time, so that its age counts from the change.
    """
    rows = events.oldest(db, cursor, limit)
    if not rows:
        return
    deliveries = []
    for _, event_type, body, created_at in rows:
        receivers = [(url, True) for url in urls] if event_type in operator_types else []
        at = db.read_time(created_at)
        receivers += [(each.id, each.enabled) for each in subscribed if each.takes(event_type, at)]
        deliveries += [
            {
                "id": uuid.uuid4().hex,
                "receiver": receiver,
                "event": event_type,
                "body": body,
                "status": PENDING if enabled else FAILED,
                "attempts": 0,
                "created_at": created_at,
                "next_attempt_at": created_at,
                "last_error": None if enabled else DISABLED,
            }
            for receiver, enabled in receivers
        ]
    queue.insert(db, cursor, deliveries)
    events.delete(db, cursor, [row[0] for row in rows])
