"""Plants: the /plants routes, their JSON shapes, and the plants table with its SQL."""

from .. import headers
from .routes import bp


def init_app(app):
    """Serve /plants; no cache may keep its answers, errors included."""
    app.register_blueprint(bp)
    headers.no_store(app, bp.url_prefix)
