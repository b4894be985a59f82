"""Webhooks, in parts: the outbox that events are published to (outbox.py); the HTTP API
(api/); the worker that delivers them, a process of its own (worker/); the secrets, signatures
and guard that both use (security/); a module per table, owning every statement on it
(tables/); the commands and the gauges of /metrics (ops/). It knows events by their type and
body alone: which events exist is their features' to say."""

from .. import database, events, headers, metrics
from .api import KEYRING, bp
from .ops.cli import webhooks_cli
from .ops.collector import DeliveryCollector
from .outbox import Outbox
from .security.keys import Keyring, warn_if_unsealed

__all__ = ["init_app", "warn_if_unsealed"]


def init_app(app):
    """Take published events; serve /webhooks, which no cache may keep, sealing secrets with
    PLANTSTORE_WEBHOOK_KEYS; register the webhooks command group and the per-receiver gauges
    of /metrics."""
    db, urls = database.of(app), app.config["WEBHOOK_URLS"]
    events.set_outbox(app, Outbox(db, urls))
    app.register_blueprint(bp)
    headers.no_store(app, bp.url_prefix)
    app.extensions[KEYRING] = Keyring(app.config["WEBHOOK_KEYS"])
    app.cli.add_command(webhooks_cli)
    metrics.of(app).registry.register(DeliveryCollector(db, urls, app.logger))
