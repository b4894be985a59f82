"""GET /metrics: Prometheus metrics, summed over every gunicorn worker of the instance."""

import hmac
import os
import time

from flask import Blueprint, Response, current_app, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from werkzeug.exceptions import Unauthorized

from . import apidoc

bp = Blueprint("metrics", __name__)

# The route of a request that matched none (404, 405): raw paths would make unbounded labels.
UNMATCHED = "unmatched"
# A client may send any method name; others are counted together, so labels stay few.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "other"
# Where the app keeps its Metrics.
EXTENSION = "plantstore.metrics"
# Where Werkzeug leaves the request it made of an environ, its URL rule matched by then.
REQUEST = "werkzeug.request"


class Metrics:
    """The app's metrics and the registry a scrape reads."""

    def __init__(self):
        # Under gunicorn (gunicorn.conf.py sets the directory) every worker writes its values to
        # files there and a scrape sums the files; otherwise this process's registry is enough.
        shared = "PROMETHEUS_MULTIPROC_DIR" in os.environ
        self.registry = CollectorRegistry()
        self._own = own = None if shared else self.registry
        self.requests = Counter(
            "plantstore_http_requests",
            "HTTP requests answered, by method, URL rule and status.",
            ["method", "route", "status"],
            registry=own,
        )
        self.duration = Histogram(
            "plantstore_http_request_duration_seconds",
            "Time to answer an HTTP request, by method and URL rule.",
            ["method", "route"],
            registry=own,
        )
        if shared:
            multiprocess.MultiProcessCollector(self.registry)
        # (method, route, status) -> its counter and histogram: labels() on every request is
        # most of what metrics cost.
        self._series = {}

    def counter(self, name, documentation):
        """A new counter without labels, summed over workers like the others."""
        return Counter(name, documentation, registry=self._own)

    def count(self, environ, status, seconds):
        """Count a request answered with status (an int) after seconds, by its method and the
        URL rule it matched."""
        matched = environ.get(REQUEST)
        rule = matched.url_rule if matched is not None else None
        route = rule.rule if rule is not None else UNMATCHED
        key = (environ["REQUEST_METHOD"].upper(), route, status)
        series = self._series.get(key)
        if series is None:
            if key[0] not in METHODS:
                key = (OTHER_METHOD, *key[1:])
            series = (self.requests.labels(*key), self.duration.labels(*key[:2]))
            self._series[key] = series
        series[0].inc()
        series[1].observe(seconds)


class Counting:
    """WSGI middleware: count and time every answer, whatever made it.

    Outside Flask, as the response headers are: a before- and an after-request hook cost a
    request more than the counting itself.
    """

    def __init__(self, app, metrics):
        self.app = app
        self.metrics = metrics

    def __call__(self, environ, start_response):
        """Serve the request, counting it once its answer starts."""
        started = time.perf_counter()

        def start_counted(status, headers, exc_info=None):
            self.metrics.count(environ, int(status[:3]), time.perf_counter() - started)
            return start_response(status, headers, exc_info)

        return self.app(environ, start_counted)


def of(app):
    """The Metrics of app."""
    return app.extensions[EXTENSION]


@bp.get("/metrics")
@apidoc.hidden  # for the monitoring system, in Prometheus text, not for the API's clients
def metrics_endpoint():
    """Serve the Prometheus metrics of this instance."""
    token = current_app.config["METRICS_TOKEN"]
    if token:
        given = request.authorization
        if (
            given is None
            or given.type != "bearer"
            or not hmac.compare_digest((given.token or "").encode(), token.encode())
        ):
            raise Unauthorized(
                "A valid metrics token is required.",
                www_authenticate=('Bearer realm="plantstore"',),
            )
    registry = of(current_app).registry
    return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


def init_app(app):
    """Create the metrics and serve /metrics; middleware() counts the requests."""
    app.extensions[EXTENSION] = Metrics()
    app.register_blueprint(bp)


def middleware(app, wsgi_app):
    """wsgi_app, counting and timing every answer in app's metrics."""
    return Counting(wsgi_app, of(app))
