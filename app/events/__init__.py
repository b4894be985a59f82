"""The events feed, a feature of its own: every change to the store as one event, written in the
change's own transaction (store.publish), which clients read in order (GET /events, routes.py)
and the webhooks' worker fans out to its receivers (cursors.py keeps where it stands); kept
PLANTSTORE_EVENT_RETENTION seconds (retention.py), by the worker or `events prune` (cli.py),
with webhooks or without. An event's place and id are in ids.py.

A feature that writes events declares their types (declared.py); the feed knows each event by
its type and body alone.
"""

from .. import database, headers, metrics
from . import cursors, gauges, ids, retention, settings, store
from .cli import events_cli
from .declared import EventType, declare, types
from .routes import bp

__all__ = [
    "EventType",
    "cursors",
    "declare",
    "gauges",
    "ids",
    "init_app",
    "retention",
    "store",
    "types",
]


def init_app(app):
    """Read the feed's settings once; serve /events, which no cache may keep; show on /metrics
    what is held back; register the events command group."""
    settings.init_app(app)
    app.register_blueprint(bp)
    app.cli.add_command(events_cli)
    headers.no_store(app, bp.url_prefix)
    metrics.of(app).registry.register(gauges.HeldBackCollector(database.of(app), app.logger))
