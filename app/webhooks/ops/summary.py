"""The outbox seen per receiver, as `webhooks status` and /metrics show it."""

import dataclasses

from ... import database, events
from ..receivers import receiver_name
from ..tables import endpoints
from ..tables.deliveries import FAILED, totals


@dataclasses.dataclass
class ReceiverSummary:
    """Pending and failed deliveries of one receiver, the age of its oldest pending one, and its
    throttle_rate (an endpoint's; None when it has none)."""

    pending: int = 0
    failed: int = 0
    oldest_age: float = 0.0
    throttle_rate: int | None = None


def per_receiver(db, configured):
    """{receiver name: ReceiverSummary} for the configured URLs, every endpoint, and every
    receiver the outbox holds.

    An event not fanned out yet is pending for every configured URL (an endpoint's count starts
    once it is fanned out). URLs that differ only in credentials or query string are one
    receiver: that is all a name shows of them.
    """
    # Ages of times the database wrote, by its clock.
    now = database.now(db)
    waiting, oldest_event = events.cursors.waiting(db)
    age = (now - oldest_event).total_seconds() if waiting else 0.0
    receivers = {
        endpoint_id: ReceiverSummary(throttle_rate=rate)
        for endpoint_id, rate in endpoints.throttle_rates(db).items()
    }
    for url in configured:  # each URL gets its delivery of a waiting event
        receiver = receivers.setdefault(receiver_name(url), ReceiverSummary(oldest_age=age))
        receiver.pending += waiting
    for counted in totals.by_receiver(db):
        receiver = receivers.setdefault(receiver_name(counted.receiver), ReceiverSummary())
        if counted.status == FAILED:
            receiver.failed += counted.total
        else:
            receiver.pending += counted.total
            oldest_age = (now - counted.oldest).total_seconds()
            receiver.oldest_age = max(receiver.oldest_age, oldest_age)
    return receivers
