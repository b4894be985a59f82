"""Who a bearer token belongs to: a static token of PLANTSTORE_API_TOKENS, or an issued one."""

import hashlib

from .. import database
from ..auth import READ_WRITE, Caller
from ..database.cli_base import invoked_as
from . import store as token_store


def token_hash(token):
    """The SHA-256 hex digest under which a token is known."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Lookup:
    """token -> Caller or None, by hash: no secret is compared byte by byte."""

    def __init__(self, db, static_tokens):
        self.db = db
        self.static = {
            token_hash(token): Caller(f"static #{number}", READ_WRITE)
            for number, token in enumerate(static_tokens, start=1)
        }

    def __call__(self, token):
        """The Caller of token, or None when it is unknown, revoked or expired."""
        digest = token_hash(token)
        caller = self.static.get(digest)
        if caller is None:
            issued = token_store.find_live(self.db, digest)
            caller = Caller(issued.name, issued.scope) if issued else None
        return caller


def warn_if_no_token(app):
    """Log how to make a token when none could authenticate a request (a check at start)."""
    if app.config["API_TOKENS"]:
        return
    try:
        live = token_store.count_live(database.of(app))
    except database.DatabaseFailure:
        return  # no database or no schema yet: /healthz reports that
    if not live:
        app.logger.warning(
            "No API token is configured, so every /plants request is refused: create one with "
            "'%s tokens create NAME' or set PLANTSTORE_API_TOKENS",
            invoked_as(),
        )
