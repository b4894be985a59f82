"""The shapes the worker's rows travel in, in one place. A shape that a statement reads is that
statement's record (``Statement(..., record=...)`` checks that its fields are the statement's
columns, in order); the others are what the worker makes of them."""

import datetime
from typing import NamedTuple

from ..payloads import Payload


class Endpoint(NamedTuple):
    """An endpoint as a round reads it (rounds.for_worker): times are datetimes, secrets still
    sealed."""

    id: str
    url: str
    enabled: bool
    failing_since: datetime.datetime | None
    secret: str
    previous_secret: str | None
    previous_until: datetime.datetime | None
    older_secret: str | None
    older_until: datetime.datetime | None
    throttle_rate: int | None
    payload: Payload


class Delivery(NamedTuple):
    """A delivery to be attempted once claimed (claimed()): created_at is its event's, which its
    age counts from and its "event" body says; attempts then counts this attempt too; claim is
    its claimed_until (an aware datetime), which its outcome must still find to be
    recorded; due, for an endpoint with a throttle_rate, the time.monotonic() its attempt may
    begin at."""

    id: str
    # An operator's URL, or an endpoint's id.
    receiver: str
    event_type: str
    body: str
    created_at: datetime.datetime
    attempts: int
    claim: datetime.datetime | None = None
    # The event's id in the feed (Plantstore-Event-Id); None for a delivery made before the feed.
    event_id: str | None = None
    due: float | None = None

    def claimed(self, until):
        """This delivery, due or just fanned out, claimed: one more attempt counted, and leased
        until until() (a database.Later: one lease for a round's claims, read at its first)."""
        # Made whole, not by _replace: the fan-out claims a delivery per event and receiver.
        return Delivery(
            self.id,
            self.receiver,
            self.event_type,
            self.body,
            self.created_at,
            self.attempts + 1,
            until(),
            self.event_id,
            self.due,
        )


class NewDelivery(NamedTuple):
    """A delivery as the fan-out writes it, one per event and receiver (deliveries.queue.insert
    makes its row): the Delivery, claimed when a window wants it; error, the last_error it fails
    with at once (its endpoint disabled)."""

    delivery: Delivery
    error: str | None = None


class Outcome(NamedTuple):
    """How an attempt of a delivery to receiver ended: error is None when a 2xx answered;
    retry_in is how many seconds after its recording the next attempt is due, by the database's
    clock, None when there is none (delivered, or no attempts left); response_status is the
    answer's status, None when there was no answer; claim is the claim of the attempt
    (Delivery.claim); response_body is the first bytes of the answer's body decoded, None when
    there was no answer."""

    id: str
    receiver: str
    error: str | None
    retry_in: float | None
    response_status: int | None = None
    claim: datetime.datetime | None = None
    response_body: str | None = None
