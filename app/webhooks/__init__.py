"""Webhooks: the outbox that events are published to, the worker that delivers them, its SQL,
its commands, its metrics and its part of the OpenAPI document. It knows events by their type
and body alone: which events exist is their features' to say."""

from .. import database, events, metrics
from .cli import webhooks_cli
from .collector import DeliveryCollector
from .keys import warn_if_unsealed
from .outbox import Outbox

__all__ = ["init_app", "warn_if_unsealed"]


def init_app(app):
    """Take published events; register the webhooks command group and the per-receiver
    gauges of /metrics."""
    db, urls = database.of(app), app.config["WEBHOOK_URLS"]
    events.set_outbox(app, Outbox(db, urls))
    app.cli.add_command(webhooks_cli)
    metrics.of(app).registry.register(DeliveryCollector(db, urls, app.logger))
