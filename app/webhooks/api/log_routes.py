"""The delivery log of a webhook endpoint, on the /webhooks blueprint (add_to): read it,
resend one delivery, recover every failed one since a time."""

from werkzeug.exceptions import Conflict, NotFound

from ... import apidoc, auth, headers
from ...database import get_db
from ..tables import endpoints
from ..tables.deliveries import endpoint_log
from . import resends
from .delivery_schemas import (
    DeliveryIdSchema,
    DeliveryListQuerySchema,
    DeliverySchema,
    RecoverySchema,
    cursor,
)
from .queries import EndpointIdSchema
from .routes import NO_SUCH_ENDPOINT, NOT_FOUND

NEXT_PAGE = {
    "description": 'While older deliveries remain, `<URL of the next, older page>; rel="next"`; '
    "absent on the last page.",
    "schema": {"type": "string"},
    "example": "<https://plants.example/webhooks/ep_Jq3vX0bqkA2mXcT7yZ9o1w/deliveries?limit=2"
    '&before=1767268800000000.5f0c6e2b9d3a4b1e8c7d6a5b4c3d2e1f>; rel="next"',
}
DISABLED = (
    409,
    "The endpoint is disabled: enable it first.",
    "The webhook endpoint is disabled: enable it first.",
)
NO_SUCH_DELIVERY = "The webhook endpoint has no delivery with this id."
# What each refusal of resends.py answers.
REFUSALS = {
    resends.Refused.NO_ENDPOINT: (NotFound, NO_SUCH_ENDPOINT),
    resends.Refused.NO_DELIVERY: (NotFound, NO_SUCH_DELIVERY),
    resends.Refused.DISABLED: (Conflict, DISABLED[2]),
}


@auth.required(auth.ADMIN)
@apidoc.response(
    200, "A page of deliveries, newest first", DeliverySchema(many=True), {"Link": NEXT_PAGE}
)
@apidoc.error(*NOT_FOUND)
@apidoc.arguments(EndpointIdSchema, "path")
@apidoc.arguments(DeliveryListQuerySchema, "query")
def list_deliveries(query, endpoint_id):
    """List the deliveries of a webhook endpoint, newest first, a page at a time.

    Every delivery within the retention, or those in `status` alone; at most `limit` of them.
    Follow the `Link` header's `rel="next"` URL to older ones until there is none.
    """
    db = get_db()
    if endpoints.get(db, endpoint_id) is None:
        raise NotFound(NO_SUCH_ENDPOINT)
    status, before = query.get("status"), query.get("before")
    page, more = endpoint_log.page(db, endpoint_id, status, before, query["limit"])
    if not more:
        return page
    last = page[-1]
    return page, headers.next_page(
        ".list_deliveries",
        endpoint_id=endpoint_id,
        status=status,
        limit=query["limit"],
        before=cursor(last["created_at"], last["id"]),
    )


@auth.required(auth.ADMIN)
@apidoc.response(202, "Sent again from now; there is no body")
@apidoc.error(404, "No such endpoint, or no such delivery of it.", NO_SUCH_DELIVERY)
@apidoc.error(*DISABLED)
@apidoc.arguments(DeliveryIdSchema, "path")
def resend_delivery(endpoint_id, delivery_id):
    """Send one delivery of a webhook endpoint again, whatever its status.

    A fresh set of attempts from now, under the same `webhook-id`. 404 for a delivery of
    another endpoint; 409 while the endpoint is disabled.
    """
    _answer(resends.resend(get_db(), endpoint_id, delivery_id))
    return headers.no_content(202)


@auth.required(auth.ADMIN)
@apidoc.response(202, "Failed deliveries are sent again from now; there is no body")
@apidoc.error(*NOT_FOUND)
@apidoc.error(*DISABLED)
@apidoc.arguments(EndpointIdSchema, "path")
@apidoc.body(RecoverySchema)
def recover_deliveries(recovery, endpoint_id):
    """Send every failed delivery of a webhook endpoint since a time again.

    Each failed delivery created at `since` or later gets a fresh set of attempts from now,
    under its own `webhook-id`. 409 while the endpoint is disabled.
    """
    _answer(resends.recover(get_db(), endpoint_id, recovery["since"]))
    return headers.no_content(202)


def add_to(bp):
    """Add the log's operations to bp, the /webhooks blueprint: one prefix, one tag."""
    bp.get("/<endpoint_id>/deliveries")(list_deliveries)
    bp.post("/<endpoint_id>/deliveries/<delivery_id>/resend")(resend_delivery)
    bp.post("/<endpoint_id>/recover")(recover_deliveries)


def _answer(refused):
    if refused is not None:
        error, message = REFUSALS[refused]
        raise error(message)
