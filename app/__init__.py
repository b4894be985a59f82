"""plantstore: a small JSON API for a plant store."""

from flask import Flask

from . import (
    auth,
    config,
    db,
    docs,
    errors,
    headers,
    health,
    jsonprovider,
    logs,
    metrics,
    migrate,
    openapi,
    plants,
    ratelimit,
    tokens,
    webhooks,
)


def create_app(test_config=None):
    """Build the app: config and logs, database and metrics, auth and errors, then the routes."""
    # No static folder: the service has no files of its own to serve at /static.
    app = Flask(__name__, instance_relative_config=True, static_folder=None)
    config.load(app, test_config)
    jsonprovider.init_app(app)
    logs.init_app(app)
    config.warn_unknown_variables(app.logger)
    db.init_app(app)
    migrate.init_app(app)
    metrics.init_app(app)
    auth.init_app(app)
    ratelimit.init_app(app)
    errors.init_app(app)
    headers.init_app(app)
    app.register_blueprint(plants.bp)
    app.register_blueprint(health.bp)
    tokens.init_app(app)
    webhooks.init_app(app)
    openapi.init_app(app)
    docs.init_app(app)
    return app
