"""The ``events`` commands: the feed's retention, run when an operator schedules it."""

import click
from flask import current_app

from ..database.cli_base import Group
from .retention import Retention

# Events one transaction deletes at most, as the worker's PLANTSTORE_WEBHOOK_RETENTION_BATCH.
BATCH = 1000

events_cli = Group("events", help="The events feed's retention.")


@events_cli.command("prune")
@click.option(
    "--batch",
    type=click.IntRange(min=1),
    default=BATCH,
    show_default=True,
    help="Most events one transaction deletes.",
)
def prune_command(batch):
    """Delete the events older than PLANTSTORE_EVENT_RETENTION, a batch a transaction, until
    none is left but those the webhooks' fan-out has still to read."""
    retention = Retention(current_app)
    deleted = 0
    while True:
        went = retention.prune(batch)
        deleted += went
        # A pass that deleted less than a batch stopped where the retention stops.
        if went < batch:
            break
    click.echo(f"Deleted {deleted} event(s) older than {retention.seconds}s.")
    waiting = retention.waiting()
    if waiting is not None:
        count, age = waiting
        click.echo(
            f"{count} event(s) wait for the webhooks' fan-out, the oldest {int(age)}s old: "
            "those past the retention go once the worker (webhooks run) has fanned them out."
        )
