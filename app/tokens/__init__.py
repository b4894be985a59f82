"""Tokens: bearer authentication of every /plants request, the table, and the commands."""

from . import auth, cli


def init_app(app):
    """Index the static tokens and register the ``tokens`` commands."""
    auth.init_app(app)
    app.cli.add_command(cli.tokens_cli)
