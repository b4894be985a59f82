"""plantstore: a small JSON API for a plant store.

Four floors, imports pointing down only (setup.cfg's import-linter contracts keep them): this
factory and the document on top; the features (plants, tokens, webhooks, health) beside each
other; the events feed, which plants write to and webhooks read from; and below them the
machinery that knows no feature.
"""

from flask import Flask

from . import (
    config,
    config_docs,
    database,
    errors,
    events,
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

# Every part's settings, in the order they are checked and documented: create_app reads them,
# and so does gunicorn's master before any worker starts (gunicorn.conf.py).
FEATURES = (
    database.settings.FEATURE,
    config.CORE,
    events.settings.FEATURE,
    webhooks.settings.FEATURE,
    ratelimit.settings.FEATURE,
)


class PlantStore(Flask):
    """Flask, asking once per function whether it is a coroutine function.

    Flask asks for the view of every request, and flask-httpauth for the view and each of its
    callbacks: inspect's check, made anew each time, cost a request about 1% of its
    instructions. The functions asked about are the app's own, a fixed few; past SYNCED_MOST
    (a function made per request: a class-based view's, an after_this_request), it asks each time.
    """

    SYNCED_MOST = 1000

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._synced = {}

    def ensure_sync(self, func):
        """func, or a wrapper that runs it to its end if it is a coroutine function."""
        synced = self._synced.get(func)
        if synced is None:
            synced = super().ensure_sync(func)
            if len(self._synced) < self.SYNCED_MOST:
                self._synced[func] = synced
        return synced


def create_app(test_config=None):
    """Build the app: config and logs, database and metrics, limits and errors, the features,
    the document, and the WSGI middlewares around it all.

    It only wires: nothing here touches the database (see ``check_at_start``).
    """
    # No static folder: the service has no files of its own to serve at /static.
    app = PlantStore(__name__, instance_relative_config=True, static_folder=None)
    config.init_app(app, FEATURES, test_config)
    app.cli.add_command(config_docs.settings_cli)
    jsonprovider.init_app(app)
    logs.init_app(app)
    config.warn_unknown_variables(app)
    database.init_app(app)
    metrics.init_app(app)
    ratelimit.init_app(app)
    errors.init_app(app)
    # The features, in the order the document lists them: what a client came for first.
    plants.init_app(app)
    webhooks.init_app(app)
    events.init_app(app)
    tokens.init_app(app)
    health.init_app(app)
    openapi.init_app(app)
    docs.init_app(app)
    _wrap(app)
    return app


def _wrap(app):
    """The WSGI middlewares, innermost first: the rate limit's headers, the metrics, then the
    request id and every response's headers, then (outermost) X-Forwarded-* from trusted
    proxies."""
    app.wsgi_app = ratelimit.middleware(app, app.wsgi_app)
    app.wsgi_app = metrics.middleware(app, app.wsgi_app)
    app.wsgi_app = headers.middleware(app, app.wsgi_app)
    app.wsgi_app = headers.trusted_proxies(app, app.wsgi_app)


def check_at_start(app):
    """What a serving process checks once it starts: the schema's revision and a token to use.
    Keys to seal webhook endpoints' secrets with are asked for when a secret is stored."""
    database.schema_of(app).check_at_start()
    tokens.warn_if_no_token(app)
