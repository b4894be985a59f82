"""Plants: the /plants routes, their JSON shapes, and the plants table with its SQL."""

from .routes import bp


def init_app(app):
    """Serve /plants."""
    app.register_blueprint(bp)
