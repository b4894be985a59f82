"""Tokens: who a bearer token belongs to, the tokens table, and the ``tokens`` commands."""

from .. import auth, database
from . import cli
from .lookup import Lookup, warn_if_no_token

__all__ = ["init_app", "warn_if_no_token"]


def init_app(app):
    """Authenticate requests with the static and issued tokens; register the commands."""
    auth.set_lookup(app, Lookup(database.of(app), app.config["API_TOKENS"]))
    app.cli.add_command(cli.tokens_cli)
