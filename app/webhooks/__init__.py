"""Webhooks, in parts: the outbox that events are published to (outbox.py); the HTTP API
(api/); the worker that delivers them, a process of its own (worker/); the secrets, signatures
and guard that both use (security/); a module per table, owning every statement on it
(tables/); the commands and the gauges of /metrics (ops/); the settings every part reads
(settings.py). It knows events by their type and body alone: which events exist is their
features' to say."""

from .. import database, events, headers, metrics
from . import settings
from .api import KEYRING, bp, feed_bp
from .ops.cli import webhooks_cli
from .ops.collector import DeliveryCollector
from .outbox import Outbox
from .security.keys import Keyring, warn_if_unsealed

__all__ = ["init_app", "warn_if_unsealed"]


def init_app(app):
    """Read its settings once; take published events; serve /webhooks, sealing secrets with
    PLANTSTORE_WEBHOOK_KEYS, and the feed, /events, neither of which a cache may keep; register
    the webhooks command group and the per-receiver gauges of /metrics."""
    db, values = database.of(app), settings.init_app(app)
    events.set_outbox(app, Outbox(db))
    for blueprint in (bp, feed_bp):
        app.register_blueprint(blueprint)
        headers.no_store(app, blueprint.url_prefix)
    app.extensions[KEYRING] = Keyring(values.keys)
    app.cli.add_command(webhooks_cli)
    metrics.of(app).registry.register(DeliveryCollector(db, values.urls, app.logger))
