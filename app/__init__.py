"""plantstore: a small JSON API for a plant store."""

from flask import Flask

from . import (
    config,
    database,
    errors,
    headers,
    health,
    jsonprovider,
    logs,
    metrics,
    openapi,
    plants,
    ratelimit,
    tokens,
    webhooks,
)
from .openapi import docs


def create_app(test_config=None):
    """Build the app: config and logs, database and metrics, auth and errors, then the routes.

    It only wires: nothing here touches the database (see ``check_at_start``).
    """
    # No static folder: the service has no files of its own to serve at /static.
    app = Flask(__name__, instance_relative_config=True, static_folder=None)
    config.load(app, test_config)
    jsonprovider.init_app(app)
    logs.init_app(app)
    config.warn_unknown_variables(app.logger)
    database.init_app(app)
    metrics.init_app(app)
    tokens.init_app(app)
    ratelimit.init_app(app)
    errors.init_app(app)
    headers.init_app(app)
    plants.init_app(app)
    health.init_app(app)
    webhooks.init_app(app)
    openapi.init_app(app)
    docs.init_app(app)
    return app


def check_at_start(app):
    """What a serving process checks once it starts: the schema's revision, and a token to use."""
    app.extensions["plantstore.schema"].check_at_start()
    tokens.auth.warn_if_no_token(app)
