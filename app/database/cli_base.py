"""The base of every CLI command: a database that cannot be used ends it in one line, and the
name the user invoked the commands by, for the messages that tell them which to run."""

import contextlib

import click
from flask import current_app
from flask.cli import AppGroup, FlaskGroup, ScriptInfo
from sqlalchemy import make_url
from sqlalchemy.exc import SQLAlchemyError

from .failures import DatabaseFailure, SchemaBehind, SchemaMissing, classify

# How a checkout runs the commands: what a message says outside a command (a gunicorn worker).
FROM_CHECKOUT = "flask --app wsgi"


def invoked_as():
    """The command line that runs this app's commands as the user invoked them: `plantstore`
    (the installed command), `flask --app wsgi`, or FROM_CHECKOUT outside any command."""
    context = click.get_current_context(silent=True)
    root = context.find_root() if context is not None else None
    # A command group alone (the tests' runner) has no program name the user typed.
    if root is None or not isinstance(root.command, FlaskGroup):
        return FROM_CHECKOUT
    info = context.find_object(ScriptInfo)
    path = info.app_import_path if info is not None else None
    return f"{root.info_name} --app {path}" if path else root.info_name


@contextlib.contextmanager
def database_failures_in_one_line():
    """Turn an unusable database into a ClickException saying what to do; re-raise bugs."""
    try:
        yield
    except (DatabaseFailure, SQLAlchemyError) as error:
        # Alembic's Core connections raise SQLAlchemy's errors, the service's own road ours.
        failure = error if isinstance(error, DatabaseFailure) else classify(error)
        if failure is None:
            raise
        cause = str(failure.cause or getattr(error, "orig", error)).strip().splitlines()[0]
        if isinstance(failure, (SchemaMissing, SchemaBehind)):
            advice = f"run `{invoked_as()} init-db`"
        else:
            url = make_url(current_app.config["DATABASE_URL"]).render_as_string(hide_password=True)
            advice = f"check that PLANTSTORE_DATABASE_URL={url} names a database that answers"
        raise click.ClickException(f"{failure} ({cause}): {advice}") from None


class Command(click.Command):
    """A command whose database failures are one line, not a traceback."""

    def invoke(self, ctx):
        """Run the command."""
        with database_failures_in_one_line():
            return super().invoke(ctx)


class Group(AppGroup):
    """An app command group whose commands' database failures are one line."""

    def invoke(self, ctx):
        """Run the subcommand."""
        with database_failures_in_one_line():
            return super().invoke(ctx)
