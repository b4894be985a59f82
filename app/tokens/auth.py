"""Bearer-token authentication and the read-only / read-write scopes."""

import hashlib
from typing import NamedTuple

from flask import current_app
from flask_httpauth import HTTPTokenAuth
from werkzeug.exceptions import Forbidden, Unauthorized

from .. import ratelimit
from ..database import DatabaseFailure, get_db
from . import store as token_store

REALM = "plantstore"
READ_WRITE = "read-write"
READ_ONLY = "read-only"

auth = HTTPTokenAuth(scheme="Bearer", realm=REALM)


class Caller(NamedTuple):
    """Who a valid token belongs to, and what it may do."""

    name: str
    scope: str


def token_hash(token):
    """The SHA-256 hex digest under which a token is known."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@auth.verify_token
def verify_token(token):
    """The Caller for a token, or None: a hash lookup, so no secret is compared byte by byte.

    A valid token's request is counted against its rate limit here, before any view runs.
    """
    digest = token_hash(token)
    extensions = current_app.extensions
    caller = extensions["plantstore.static_tokens"].get(digest)
    if caller is None:
        issued = token_store.find_live(get_db(), digest)
        caller = Caller(*issued) if issued else None
    limits = extensions.get(ratelimit.EXTENSION)
    if caller is not None and limits is not None:
        limits.check_token(caller.name)
    return caller


@auth.get_user_roles
def get_user_roles(caller):
    """A caller's one role is its scope."""
    return caller.scope


@auth.error_handler
def auth_error(status):
    """Hand 401 and 403 to the one error handler, with the Bearer challenge on a 401."""
    if status == 403:
        raise Forbidden("This token is read-only.")
    limits = current_app.extensions.get(ratelimit.EXTENSION)
    if limits is not None:
        limits.check_refused()  # past its address's limit, a 429 instead
    challenge = f'Bearer realm="{REALM}"'
    if getattr(auth.get_auth(), "token", None):
        challenge += ', error="invalid_token"'
        raise Unauthorized(
            "The bearer token is unknown, revoked or expired.", www_authenticate=(challenge,)
        )
    raise Unauthorized("A bearer token is required.", www_authenticate=(challenge,))


def warn_if_no_token(app):
    """Log how to make a token when none could authenticate a request (a check at start)."""
    if app.config["API_TOKENS"]:
        return
    try:
        live = token_store.count_live(app.extensions["plantstore.db"])
    except DatabaseFailure:
        return  # no database or no schema yet: /healthz reports that
    if not live:
        app.logger.warning(
            "No API token is configured, so every /plants request is refused: create one with "
            "'flask --app wsgi tokens create NAME' or set PLANTSTORE_API_TOKENS"
        )


def init_app(app):
    """Index the static tokens of PLANTSTORE_API_TOKENS by hash."""
    app.extensions["plantstore.static_tokens"] = {
        token_hash(token): Caller(f"static #{number}", READ_WRITE)
        for number, token in enumerate(app.config["API_TOKENS"], start=1)
    }
