"""The base of every CLI command: a database that cannot be used ends it in one line."""

import contextlib

import click
from flask import current_app
from flask.cli import AppGroup
from sqlalchemy import make_url
from sqlalchemy.exc import SQLAlchemyError

from .failures import DatabaseFailure, SchemaBehind, SchemaMissing, classify


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
            advice = "run `flask --app wsgi init-db`"
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
