"""The ``webhooks`` commands: run the worker, show the outbox per receiver, retry, purge; and
the line `flask run` starts with, since it runs no worker."""

import click
from flask import cli as flask_cli
from flask import current_app
from werkzeug.serving import is_running_from_reloader

from ... import events
from ...database import get_db
from ...database.cli_base import Group, invoked_as
from .. import settings
from ..receivers import receiver_name
from ..security.signatures import standard_secret
from ..tables.deliveries import totals
from .summary import per_receiver

# Failed deliveries `status` lists at the most: `webhooks failed` pages through the rest.
FAILED_SHOWN = 20
webhooks_cli = Group("webhooks", help="Deliver webhook events and inspect deliveries.")


@webhooks_cli.command("run")
def run_command():
    """Deliver events until SIGTERM or SIGINT (the Procfile's worker)."""
    # Imported here: the sender's libraries are loaded by the worker process only.
    from ..worker import Worker

    logger = current_app.logger
    receivers = settings.of(current_app).urls

    def started():
        logger.info(
            "Delivering webhooks to the endpoints registered through the API and %d operator's "
            "receiver(s)%s.",
            len(receivers),
            "".join(f", {receiver_name(url)}" for url in receivers),
        )

    Worker(current_app).serve(started)
    logger.info("Webhook worker stopped.")


def note_under_development_server():
    """Say, in one line, that the worker is a command of its own, when the app is loaded by
    Flask's development server (`flask run`), which starts none; under --debug, in the
    reloader's parent alone."""
    context = click.get_current_context(silent=True)
    if context is None or context.command is not flask_cli.run_command:
        return  # gunicorn, any other command, an app made in a test
    if not is_running_from_reloader():
        click.echo(
            f"This server delivers no webhooks: the worker is a command of its own, "
            f"`{invoked_as()} webhooks run`.",
            err=True,
        )


@webhooks_cli.command("status")
def status_command():
    """Count deliveries, per receiver too; list the oldest failed ones."""
    db = get_db()
    receivers = per_receiver(db, settings.of(current_app).urls)
    pending = sum(receiver.pending for receiver in receivers.values())
    failed = sum(receiver.failed for receiver in receivers.values())
    delivered = _delivered(totals.delivered(db, pending + failed))
    click.echo(f"pending: {pending}\ndelivered: {delivered}\nfailed: {failed}")
    ages = [receiver.oldest_age for receiver in receivers.values() if receiver.pending]
    if ages:
        click.echo(f"oldest pending: {int(max(ages))}s")
    held, oldest = events.store.held_back(db)
    if held:
        # Not yet in the feed, so not fanned out: a transaction older than theirs still runs.
        click.echo(f"events held back: {held}, oldest {int(events.gauges.age(db, oldest))}s")
    for name, receiver in receivers.items():
        rate = receiver.throttle_rate
        click.echo(
            f"receiver {name}: pending {receiver.pending}, failed {receiver.failed}, "
            f"oldest pending {int(receiver.oldest_age)}s"
            + (f", throttled to {rate} a second" if rate else "")
        )
    _echo_failed(totals.failed(db, limit=FAILED_SHOWN + 1), FAILED_SHOWN)


@webhooks_cli.command("failed")
@click.option("--after", help="The id of the last failed delivery a page showed.")
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
def failed_command(after, limit):
    """List failed deliveries, oldest first, a page at a time."""
    page = totals.failed(get_db(), after, limit + 1)
    if page is None:
        raise click.ClickException(f"no failed delivery {after}: retried or purged since?")
    _echo_failed(page, limit)


def _delivered(counted):
    # Exact while small; beyond, an estimate (PostgreSQL) or a bound (docs/webhooks.md).
    if counted.exact:
        return str(counted.number)
    if counted.number is None:
        return f"more than {totals.EXACT_UP_TO}"
    return f"about {counted.number}"


def _echo_failed(page, limit):
    # One row more than limit was read: whether there is a next page.
    for each in page[:limit]:
        name = receiver_name(each.receiver)
        click.echo(f"failed {each.id} {name} after {each.attempts} attempts: {each.last_error}")
    if len(page) > limit:
        click.echo(f"more: {invoked_as()} webhooks failed --after {page[limit - 1].id}")


@webhooks_cli.command("retry-failed")
def retry_failed_command():
    """Give every failed delivery a fresh set of attempts."""
    click.echo(f"Retrying {totals.retry_failed(get_db())} failed delivery(ies).")


@webhooks_cli.command("purge-failed")
def purge_failed_command():
    """Delete every failed delivery, for good."""
    click.echo(f"Deleted {totals.purge_failed(get_db())} failed delivery(ies).")


@webhooks_cli.command("secret")
def secret_command():
    """Print PLANTSTORE_WEBHOOK_SECRET as Standard Webhooks libraries take it (whsec_...)."""
    secret = settings.of(current_app).secret
    if not secret:
        raise click.ClickException("PLANTSTORE_WEBHOOK_SECRET is not set")
    click.echo(standard_secret(secret))
