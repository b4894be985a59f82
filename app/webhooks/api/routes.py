"""The /webhooks blueprint: endpoints that receivers register, change and remove themselves,
with an admin token. Their delivery logs are in log_routes.py."""

import secrets

from flask import Blueprint, current_app, url_for
from werkzeug.exceptions import Conflict, NotFound

from ... import apidoc, auth, headers
from ...database import get_db
from .. import receivers, settings
from ..security import keys
from ..tables import endpoints
from ..tables.endpoints import rotation
from . import registration
from .queries import EndpointIdSchema, EndpointListQuerySchema
from .schemas import (
    CreatedWebhookEndpointSchema,
    NewWebhookEndpointSchema,
    NewWebhookSecretSchema,
    WebhookEndpointChangeSchema,
    WebhookEndpointSchema,
)

bp = apidoc.tag(
    Blueprint("webhooks", __name__, url_prefix="/webhooks"),
    "Webhook endpoints: receivers that register themselves, each with its own secret, events "
    "and delivery log. Every operation needs an admin token.",
)

# Where the app keeps the Keyring that seals endpoint secrets.
KEYRING = "plantstore.webhook_keyring"
NO_SUCH_ENDPOINT = "There is no webhook endpoint with this id."
NOT_FOUND = (
    404,
    "No such resource: an unknown path, or no endpoint with this id.",
    NO_SUCH_ENDPOINT,
)
BAD_URL = (
    400,
    "The request is malformed, or its url reaches an address that is not public: the message "
    "names every offending field, and the address.",
    "url: 10.0.0.1 is not a public address, nor in PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS.",
)
TOO_MANY = (
    409,
    "There are PLANTSTORE_WEBHOOK_MAX_ENDPOINTS endpoints already.",
    "There are 100 webhook endpoints already, the most PLANTSTORE_WEBHOOK_MAX_ENDPOINTS allows.",
)
NEXT_PAGE = {
    "description": 'When more endpoints remain, `<URL of the next page>; rel="next"`; '
    "absent on the last page.",
    "schema": {"type": "string"},
    "example": "<https://plants.example/webhooks?limit=2&after=ep_Jq3vX0bqkA2mXcT7yZ9o1w>; "
    'rel="next"',
}
LOCATION = {
    "description": "The path of the new endpoint, `/webhooks/{id}`.",
    "schema": {"type": "string"},
}


def keyring():
    """The Keyring that seals endpoint secrets with PLANTSTORE_WEBHOOK_KEYS."""
    return current_app.extensions[KEYRING]


@bp.post("")
@auth.required(auth.ADMIN)
@apidoc.response(
    201, "The endpoint, with its secret", CreatedWebhookEndpointSchema, {"Location": LOCATION}
)
@apidoc.error(*BAD_URL)
@apidoc.error(*TOO_MANY)
@apidoc.body(NewWebhookEndpointSchema)
def create_webhook_endpoint(endpoint):
    """Register a webhook endpoint; its secret is in this answer only.

    The endpoint gets the events of `events` (every type by default) from now on, each signed
    with its own secret as Standard Webhooks says. Keep the secret: no other answer shows it.
    The url's host must be, and resolve to, public addresses, unless
    PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS allows them; a name that does not resolve yet is
    accepted. `throttle_rate` caps its attempts a second over every worker. `payload` chooses
    its bodies, the feed's Event (`event`) by default. Unknown keys are refused.
    """
    values = settings.of(current_app)
    registration.check(endpoint["url"], values.allowed_networks)
    keys.warn_if_unsealed(current_app)
    endpoint_id = receivers.ID_PREFIX + secrets.token_urlsafe(16)
    secret = keys.new_secret()
    most = values.max_endpoints
    try:
        created = endpoints.create(
            get_db(), {**endpoint, "id": endpoint_id}, keyring().seal(secret), most
        )
    except endpoints.TooMany:
        raise Conflict(
            f"There are {most} webhook endpoints already, the most "
            "PLANTSTORE_WEBHOOK_MAX_ENDPOINTS allows."
        ) from None
    location = url_for(".get_webhook_endpoint", endpoint_id=endpoint_id)
    return {**created, "secret": secret}, 201, {"Location": location}


@bp.get("")
@auth.required(auth.ADMIN)
@apidoc.response(200, "A page of endpoints", WebhookEndpointSchema(many=True), {"Link": NEXT_PAGE})
@apidoc.arguments(EndpointListQuerySchema, "query")
def list_webhook_endpoints(query):
    """List webhook endpoints by ascending id, a page at a time.

    At most `limit` endpoints whose id is above `after`; follow the `Link` header's
    `rel="next"` URL until there is none. Secrets are never shown.
    """
    page, more = endpoints.page(get_db(), query.get("after", ""), query["limit"])
    if not more:
        return page
    last = page[-1]["id"]
    return page, headers.next_page(".list_webhook_endpoints", limit=query["limit"], after=last)


@bp.get("/<endpoint_id>")
@auth.required(auth.ADMIN)
@apidoc.response(200, "The endpoint, without its secret", WebhookEndpointSchema)
@apidoc.error(*NOT_FOUND)
@apidoc.arguments(EndpointIdSchema, "path")
def get_webhook_endpoint(endpoint_id):
    """Read one webhook endpoint.

    The endpoint with this id, without its secret; 404 when there is none.
    """
    return _existing(endpoint_id)


def _existing(endpoint_id):
    endpoint = endpoints.get(get_db(), endpoint_id)
    if endpoint is None:
        raise NotFound(NO_SUCH_ENDPOINT)
    return endpoint


@bp.patch("/<endpoint_id>")
@auth.required(auth.ADMIN)
@apidoc.response(200, "The endpoint as it now is", WebhookEndpointSchema)
@apidoc.error(*BAD_URL)
@apidoc.error(*NOT_FOUND)
@apidoc.arguments(EndpointIdSchema, "path")
@apidoc.body(WebhookEndpointChangeSchema)
def update_webhook_endpoint(changes, endpoint_id):
    """Change any of a webhook endpoint's settings, each as its field says.

    `enabled: false` disables it: it gets no new events, and its pending deliveries fail, to
    be recovered once it is enabled again. `enabled: true` enables it and clears
    `disabled_reason`. A new url is checked as at registration. A new `throttle_rate` paces
    its attempts within a second, those already pending too; `null` lifts it. A new `payload`
    holds for every attempt from then on, a pending delivery's next one and a resend's too.
    Unknown keys are refused.
    """
    current = _existing(endpoint_id)
    if changes.get("url", current["url"]) != current["url"]:
        registration.check(changes["url"], settings.of(current_app).allowed_networks)
    changed = endpoints.update(get_db(), endpoint_id, changes)
    if changed is None:  # deleted meanwhile
        raise NotFound(NO_SUCH_ENDPOINT)
    return changed


@bp.delete("/<endpoint_id>")
@auth.required(auth.ADMIN)
@apidoc.response(204, "Deleted; there is no body")
@apidoc.error(*NOT_FOUND)
@apidoc.arguments(EndpointIdSchema, "path")
def delete_webhook_endpoint(endpoint_id):
    """Delete a webhook endpoint and its delivery log.

    Nothing more is sent to it, its pending deliveries included. 404 when there is none.
    """
    if not endpoints.delete(get_db(), endpoint_id):
        raise NotFound(NO_SUCH_ENDPOINT)
    return headers.no_content(204)


@bp.post("/<endpoint_id>/secret")
@auth.required(auth.ADMIN)
@apidoc.response(200, "The new secret, shown this once", NewWebhookSecretSchema)
@apidoc.error(*NOT_FOUND)
@apidoc.arguments(EndpointIdSchema, "path")
def rotate_webhook_secret(endpoint_id):
    """Give a webhook endpoint a new secret; the old one still signs for a while.

    For PLANTSTORE_WEBHOOK_SECRET_OVERLAP seconds (a day by default) every attempt carries two
    signatures, the new secret's first, so that a receiver holding either verifies it; then
    only the new one. A secret replaced again within its overlap still signs until that overlap
    ends: three signatures at most, newest first. The new secret is in this answer only.
    """
    keys.warn_if_unsealed(current_app)
    secret = keys.new_secret()
    overlap = settings.of(current_app).secret_overlap
    if not rotation.rotate(get_db(), endpoint_id, keyring().seal(secret), overlap):
        raise NotFound(NO_SUCH_ENDPOINT)
    return {"secret": secret}
