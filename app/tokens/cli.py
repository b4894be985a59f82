"""The ``tokens`` command group: issue, list and revoke bearer tokens."""

import datetime
import math
import secrets

import click

from ..auth import ADMIN, READ_ONLY, READ_WRITE
from ..database import get_db, utcnow
from ..database.cli_base import Group
from . import store as token_store
from .lookup import token_hash

# A fixed prefix makes a leaked token easy to find with grep or a secret scanner.
TOKEN_PREFIX = "pst_"
# A day short of datetime.max, so a PostgreSQL session in any time zone can still read it back.
LATEST_EXPIRY = datetime.datetime(9999, 12, 30, tzinfo=datetime.UTC)

tokens_cli = Group("tokens", help="Issue, list and revoke API tokens.")


def _expiry(_ctx, _param, days):
    """The expiry time of --expires-in DAYS: finite, and no later than LATEST_EXPIRY."""
    if days is None:
        return None
    now = utcnow()
    longest = (LATEST_EXPIRY - now).days
    if not math.isfinite(days) or days > longest:
        raise click.BadParameter(f"{days} is not a finite number of days up to {longest}")
    return now + datetime.timedelta(days=days)


def _when(value):
    if value is None:
        return "-"
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def issue(db, name, scope, expires_at):
    """A new token recorded under name by its hash: its text, which nothing keeps. Raises
    token_store.DuplicateName when the name is taken."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token_store.create(db, name, token_hash(token), scope, expires_at)
    return token


@tokens_cli.command("create")
@click.argument("name")
@click.option("--read-only", is_flag=True, help="Allow GET only; POST, PATCH and DELETE get 403.")
@click.option("--admin", is_flag=True, help="Allow /webhooks too, besides every /plants operation.")
@click.option(
    "--expires-in",
    "expires_at",
    type=click.FloatRange(min=0, min_open=True),
    callback=_expiry,
    metavar="DAYS",
    help="Expire after this many days (fractions allowed); default never.",
)
def create_command(name, read_only, admin, expires_at):
    """Create a token; it is printed once, alone on the last line."""
    if not 1 <= len(name) <= 100 or not name.isprintable():
        raise click.BadParameter("1 to 100 printable characters", param_hint="NAME")
    if read_only and admin:
        raise click.UsageError("--read-only and --admin exclude each other")
    scope = READ_ONLY if read_only else ADMIN if admin else READ_WRITE
    try:
        token = issue(get_db(), name, scope, expires_at)
    except token_store.DuplicateName:
        raise click.ClickException(f"a token named {name!r} exists already") from None
    click.echo(f"Created {scope} token {name!r}, expires {_when(expires_at)}.", err=True)
    click.echo("It is shown this once and cannot be recovered:", err=True)
    click.echo(token)


@tokens_cli.command("list")
def list_command():
    """Show every token's name, scope, creation, expiry and revocation; never a secret."""
    rows = [("NAME", "SCOPE", "CREATED", "EXPIRES", "REVOKED")]
    for row in token_store.list_all(get_db()):
        rows.append(
            (
                row.name,
                row.scope,
                _when(row.created_at),
                _when(row.expires_at),
                _when(row.revoked_at),
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(5)]
    for row in rows:
        cells = (value.ljust(width) for value, width in zip(row, widths, strict=True))
        click.echo("  ".join(cells).rstrip())


@tokens_cli.command("revoke")
@click.argument("name")
def revoke_command(name):
    """Revoke a token at once, for every worker and host sharing the database."""
    if not token_store.revoke(get_db(), name):
        raise click.ClickException(f"there is no token named {name!r}")
    click.echo(f"Revoked token {name!r}.")
