"""Plants: the /plants routes, their JSON shapes, the plants table with its SQL, and the
event types a change of a plant writes to the events feed."""

from .. import headers, metrics
from ..events import declare
from .event_types import EVENT_TYPES
from .routes import CREATED_COUNTER, bp


def init_app(app):
    """Serve /plants; no cache may keep its answers, errors included. Count new plants, and
    declare the event types a change writes."""
    app.register_blueprint(bp)
    declare(app, EVENT_TYPES)
    headers.no_store(app, bp.url_prefix)
    app.extensions[CREATED_COUNTER] = metrics.of(app).counter(
        "plantstore_plants_created", "Plants newly stored (not replays)."
    )
