"""Sending an endpoint's deliveries again, one or every failed one since a time, while the
endpoint is enabled; and why not."""

import enum

from ..tables import endpoints
from ..tables.deliveries import endpoint_log


class Refused(enum.Enum):
    """Why deliveries were not sent again."""

    NO_ENDPOINT = "there is no such endpoint"
    DISABLED = "the endpoint is disabled"
    NO_DELIVERY = "the endpoint has no such delivery"


def resend(db, endpoint_id, delivery_id):
    """Give one delivery of the endpoint, whatever its status, a fresh set of attempts from
    now, under the same id. None, or why not (Refused)."""
    with db.transaction() as cursor:
        refused = _refused(cursor, endpoint_id)
        if refused is None and not endpoint_log.resend(cursor, endpoint_id, delivery_id):
            refused = Refused.NO_DELIVERY
    return refused


def recover(db, endpoint_id, since):
    """Give every failed delivery of the endpoint created at since or later a fresh set of
    attempts from now. None, or why not (Refused)."""
    with db.transaction() as cursor:
        refused = _refused(cursor, endpoint_id)
        if refused is None:
            endpoint_log.recover(cursor, endpoint_id, since)
    return refused


def _refused(cursor, endpoint_id):
    # Read so that a disable (which fails pending deliveries) and a resend wait for each other.
    enabled = endpoints.enabled(cursor, endpoint_id)
    if enabled is None:
        return Refused.NO_ENDPOINT
    return None if enabled else Refused.DISABLED
