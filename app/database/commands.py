"""The database's commands: ``init-db``, and Alembic's under ``db``.

Each imports Alembic (migrate.py) when it runs: every process of the service imports this
module, and few of them migrate.
"""

import click
from flask.cli import with_appcontext

from .access import get_db
from .cli_base import Command, Group
from .revisions import current_revisions, shipped, upgrade_hint


class _MigrationCommands(Group):
    # Alembic's errors (an unknown revision, a detected difference) are one line, not a traceback.
    def invoke(self, ctx):
        from alembic.util import CommandError

        try:
            return super().invoke(ctx)
        except CommandError as error:
            raise click.ClickException(str(error)) from None


db_cli = _MigrationCommands("db", help="Schema migrations (Alembic).")


@click.command("init-db", cls=Command)
@with_appcontext
def init_db_command():
    """Bring the schema to the latest migration; the same as ``db upgrade``."""
    from .migrate import upgrade

    upgrade(get_db())
    click.echo("Database schema is ready.")


@db_cli.command("upgrade")
@click.argument("revision", default="head")
def upgrade_command(revision):
    """Upgrade the schema to REVISION (default: head), adopting a 1.0 database."""
    from .migrate import upgrade

    upgrade(get_db(), revision)
    click.echo(f"Database schema upgraded to {revision}.")


@db_cli.command("downgrade")
@click.argument("revision")
def downgrade_command(revision):
    """Downgrade the schema to REVISION ("base" drops every table)."""
    from .migrate import downgrade

    downgrade(get_db(), revision)
    click.echo(f"Database schema downgraded to {revision}.")


@db_cli.command("current")
def current_command():
    """Show the database's revision."""
    # Read here rather than by command.current, which creates alembic_version when it is missing.
    current = current_revisions(get_db())
    heads, _known = shipped()
    for revision in current:
        click.echo(f"{revision} (head)" if revision in heads else revision)
    if not current:
        click.echo(f"no revision: {upgrade_hint()}")


@db_cli.command("history")
def history_command():
    """List the revisions, newest first."""
    from alembic import command

    from .migrate import alembic_config

    command.history(alembic_config())


@db_cli.command("revision")
@click.option("-m", "--message", required=True, help="What the revision does.")
@click.option(
    "--autogenerate", is_flag=True, help="Compare the database with the service's tables."
)
def revision_command(message, autogenerate):
    """Write a new revision into app/database/migrations/versions, to review before committing."""
    from alembic import command

    from .migrate import alembic_config, schema_lock

    with schema_lock(get_db()) as conn:
        command.revision(alembic_config(conn), message=message, autogenerate=autogenerate)


@db_cli.command("check")
def check_command():
    """Fail when the service's tables and the head revision differ (a change without a revision)."""
    from alembic import command

    from .migrate import alembic_config, schema_lock

    with schema_lock(get_db()) as conn:
        command.check(alembic_config(conn))
