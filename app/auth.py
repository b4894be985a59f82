"""Bearer-token authentication of every request that needs a token, and the scopes.

Who a token belongs to is the tokens feature's to say: it plugs its lookup in with
``set_lookup``. Here is what every protected operation shares: the challenge, the scopes, the
rate limit counted once the caller is known, and what the document says of each.
"""

from typing import NamedTuple

from flask import current_app, request
from flask_httpauth import HTTPTokenAuth
from werkzeug.exceptions import Forbidden, Unauthorized

from . import apidoc, ratelimit

REALM = "plantstore"
READ_WRITE = "read-write"
READ_ONLY = "read-only"
ADMIN = "admin"
# The roles each scope holds: admin may do everything read-write may.
ROLES = {READ_ONLY: (READ_ONLY,), READ_WRITE: (READ_WRITE,), ADMIN: (ADMIN, READ_WRITE)}
# Where the app keeps the lookup: token -> Caller or None.
LOOKUP = "plantstore.token_lookup"

auth = HTTPTokenAuth(scheme="Bearer", realm=REALM)

# What a protected operation may answer because of its token.
UNAUTHORIZED = (
    401,
    "No bearer token, or one that is unknown, revoked or expired.",
    "A bearer token is required.",
)
# The 403 of an operation that needs a role, by role.
FORBIDDEN = {
    READ_WRITE: (403, "The token is read-only.", "This token is read-only."),
    ADMIN: (403, "The token has no admin scope.", "This operation needs an admin token."),
}
# The token is looked up in the database.
UNAVAILABLE = 503


class Caller(NamedTuple):
    """Who a valid token belongs to, and what it may do."""

    name: str
    scope: str


def set_lookup(app, lookup):
    """Authenticate app's requests with lookup(token), which gives a Caller or None."""
    app.extensions[LOOKUP] = lookup


@auth.verify_token
def verify_token(token):
    """The Caller for a token, or None.

    A valid token's request is counted against its rate limit here, before any view runs.
    """
    extensions = current_app.extensions
    caller = extensions[LOOKUP](token)
    limits = extensions.get(ratelimit.EXTENSION)
    if caller is not None and limits is not None:
        limits.check_token(caller.name)
    return caller


@auth.get_user_roles
def get_user_roles(caller):
    """The roles a caller's scope holds."""
    return ROLES[caller.scope]


@auth.error_handler
def auth_error(status):
    """Hand 401 and 403 to the one error handler, with the Bearer challenge on a 401."""
    if status == 403:
        # The message the operation declares for its role (see required()).
        view = current_app.view_functions[request.url_rule.endpoint]
        raise Forbidden(apidoc.operation_of(view).error_texts[403][1])
    limits = current_app.extensions.get(ratelimit.EXTENSION)
    if limits is not None:
        limits.check_refused()  # past its address's limit, a 429 instead
    challenge = f'Bearer realm="{REALM}"'
    if getattr(auth.get_auth(), "token", None):
        challenge += ', error="invalid_token"'
        raise Unauthorized(
            "The bearer token is unknown, revoked or expired.", www_authenticate=(challenge,)
        )
    raise Unauthorized(UNAUTHORIZED[2], www_authenticate=(challenge,))


def required(role=None):
    """Authenticate the request, before its body is read; with role, the caller needs it.

    The operation is documented with the answers a token brings: 401, 503 (the lookup), the
    rate limit's 429 and headers, and 403 when a role is required.
    """

    def decorator(view):
        guarded = apidoc.secured(ratelimit.documented(auth.login_required(role=role)(view)))
        guarded = apidoc.error(*UNAUTHORIZED)(apidoc.errors(UNAVAILABLE)(guarded))
        return apidoc.error(*FORBIDDEN[role])(guarded) if role else guarded

    return decorator
