"""The events feed, a feature of its own: every change to the store as one event, written in the
change's own transaction (store.publish), which clients read in order (GET /events, routes.py)
and the webhooks' worker fans out to its receivers (cursors.py keeps where it stands); kept
PLANTSTORE_EVENT_RETENTION seconds (retention.py), by the worker or `events prune` (cli.py),
with webhooks or without. An event's place and id are in ids.py. The event catalog (GET
/event-types, catalog.py) lists the types with the JSON Schema of their data.

A feature that writes events declares their types (declared.py); the feed knows each event by
its type and body alone.
"""

from .. import database, headers, metrics
from . import catalog, cursors, gauges, ids, retention, settings, store
from .cli import events_cli
from .declared import EventType, declare, types
from .routes import bp

__all__ = [
    "EventType",
    "catalog",
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
    """Read the feed's settings once; serve /events and /event-types, which no cache may keep;
    show on /metrics what is held back; register the events command group."""
    settings.init_app(app)
    app.register_blueprint(bp)
    app.register_blueprint(catalog.bp)
    app.cli.add_command(events_cli)
    headers.no_store(app, bp.url_prefix)
    # The catalog changes only with a deploy, but like every answer to a token, none is kept.
    headers.no_store(app, catalog.bp.url_prefix)
    metrics.of(app).registry.register(gauges.HeldBackCollector(database.of(app), app.logger))
