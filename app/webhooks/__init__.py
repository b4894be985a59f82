"""Webhooks: the outbox rows a create writes, the worker that delivers them, its SQL, its
commands, its metrics and its part of the OpenAPI document."""

from .cli import webhooks_cli
from .collector import DeliveryCollector
from .outbox import outbox_rows

__all__ = ["init_app", "outbox_rows"]


def init_app(app):
    """Register the webhooks command group and the per-receiver gauges of /metrics."""
    app.cli.add_command(webhooks_cli)
    registry = app.extensions["plantstore.metrics"].registry
    registry.register(
        DeliveryCollector(app.extensions["plantstore.db"], app.config["WEBHOOK_URLS"], app.logger)
    )
