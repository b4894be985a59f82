"""Webhooks, in parts: the HTTP API (api/); the worker that fans the events feed out and
delivers it, a process of its own (worker/); the secrets, signatures and guard that both use
(security/); a module per table, owning every statement on it (tables/); the commands and the
gauges of /metrics (ops/); the settings every part reads (settings.py). It knows events by
their type and body alone: which events exist is their features' to say."""

import functools

from .. import database, events, headers, metrics
from . import settings
from .api import KEYRING, bp
from .ops.cli import note_under_development_server, webhooks_cli
from .ops.collector import DeliveryCollector
from .security.keys import Keyring, warn_if_unsealed
from .tables.endpoints import timelines

__all__ = ["init_app", "warn_if_unsealed"]


def init_app(app):
    """Read its settings once; serve /webhooks, sealing secrets with PLANTSTORE_WEBHOOK_KEYS,
    which no cache may keep; register the webhooks command group (and say, under `flask run`,
    that the worker is one of its commands) and the per-receiver gauges of /metrics; tell the
    feed's retention when the fan-out has receivers."""
    db, values = database.of(app), settings.init_app(app)
    app.register_blueprint(bp)
    headers.no_store(app, bp.url_prefix)
    app.extensions[KEYRING] = Keyring(values.keys)
    app.cli.add_command(webhooks_cli)
    note_under_development_server()
    metrics.of(app).registry.register(DeliveryCollector(db, values.urls, app.logger))
    events.retention.fanout_receivers(app, functools.partial(_has_receiver, values.urls))


def _has_receiver(urls, cursor):
    # The operator's URLs, as this process has them, or an endpoint registered.
    return bool(urls) or timelines.any_endpoint(cursor)
