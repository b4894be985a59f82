"""The events feed, a feature of its own: every change to the store as one event, written in the
change's own transaction (store.publish), which clients read in order (GET /events, routes.py)
and the webhooks' worker fans out to its receivers; kept PLANTSTORE_EVENT_RETENTION seconds.

A feature that writes events declares their types (declared.py); the feed knows each event by
its type and body alone.
"""

from .. import headers
from . import settings
from .declared import EventType, declare, types
from .routes import bp

__all__ = ["EventType", "declare", "init_app", "types"]


def init_app(app):
    """Read the feed's settings once; serve /events, which no cache may keep."""
    settings.init_app(app)
    app.register_blueprint(bp)
    headers.no_store(app, bp.url_prefix)
