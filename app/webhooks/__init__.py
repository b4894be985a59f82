"""Webhooks, in parts: the outbox that events are published to (outbox.py); the HTTP API
(api/); the worker that delivers them, a process of its own (worker/); the secrets, signatures
and guard that both use (security/); a module per table, owning every statement on it
(tables/); the commands and the gauges of /metrics (ops/); the settings every part reads
(settings.py). It knows events by their type and body alone: which events exist is their
features' to say."""

from .. import database, events, headers, metrics
from . import settings
from .api import KEYRING, bp
from .ops.cli import webhooks_cli
from .ops.collector import DeliveryCollector
from .outbox import Outbox
from .security.keys import Keyring, warn_if_unsealed

__all__ = ["init_app", "warn_if_unsealed"]


def init_app(app):
    """Read its settings once; take published events; serve /webhooks, which no cache may
    keep, sealing secrets with PLANTSTORE_WEBHOOK_KEYS; register the webhooks command group and
    the per-receiver gauges of /metrics."""
    db, values = database.of(app), settings.init_app(app)
    events.set_outbox(app, Outbox(db))
    app.register_blueprint(bp)
    headers.no_store(app, bp.url_prefix)
    app.extensions[KEYRING] = Keyring(values.keys)
    app.cli.add_command(webhooks_cli)
    metrics.of(app).registry.register(DeliveryCollector(db, values.urls, app.logger))
