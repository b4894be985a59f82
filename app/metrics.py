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
from prometheus_client.core import GaugeMetricFamily
from werkzeug.exceptions import Unauthorized

from .database import DatabaseFailure, utcnow
from .openapi import apidoc
from .store import deliveries as delivery_store

bp = Blueprint("metrics", __name__)

# The route of a request that matched none (404, 405): raw paths would make unbounded labels.
UNMATCHED = "unmatched"
# A client may send any method name; others are counted together, so labels stay few.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "other"
# Where a request's start time is kept, in its WSGI environ.
STARTED = "plantstore.started"


class DeliveryCollector:
    """Webhook delivery gauges, read from the database at each scrape, whichever host delivers."""

    def __init__(self, db, logger):
        self.db = db
        self.logger = logger

    def describe(self):
        """The gauges' names, so that registering them reads no database."""
        return self._families()

    def collect(self):
        """Count deliveries by status and age the oldest pending one; nothing if the db fails."""
        try:
            counts, oldest = delivery_store.summary(self.db)
        except DatabaseFailure as error:
            self.logger.warning(
                "metrics: webhook deliveries not read: %s", error.__class__.__name__
            )
            return []
        age = (utcnow() - oldest).total_seconds() if oldest else 0
        return self._families(counts, age)

    @staticmethod
    def _families(counts=None, age=None):
        deliveries = GaugeMetricFamily(
            "plantstore_webhook_deliveries", "Webhook deliveries by status.", labels=["status"]
        )
        for status, count in (counts or {}).items():
            deliveries.add_metric([status], count)
        oldest = GaugeMetricFamily(
            "plantstore_webhook_oldest_pending_seconds",
            "Age of the oldest pending webhook delivery (0 when none is pending).",
            value=age,
        )
        return [deliveries, oldest]


class Metrics:
    """The app's metrics and the registry a scrape reads."""

    def __init__(self, db, logger):
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
        self.plants_created = Counter(
            "plantstore_plants_created", "Plants newly stored (not replays).", registry=own
        )
        if shared:
            multiprocess.MultiProcessCollector(self.registry)
        self.registry.register(DeliveryCollector(db, logger))
        # (method, route, status) -> its counter and histogram: labels() on every request is
        # most of what metrics cost.
        self._series = {}

    def counter(self, name, documentation):
        """A new counter without labels, summed over workers like the others."""
        return Counter(name, documentation, registry=self._own)

    def start_clock(self):
        """Note when the request began (a before_request hook)."""
        request.environ[STARTED] = time.perf_counter()

    def count(self, response):
        """Count the answered request and its duration (an after_request hook)."""
        # One context lookup, not one per attribute: this runs on every request.
        current = request._get_current_object()
        seconds = time.perf_counter() - current.environ[STARTED]
        rule = current.url_rule
        key = (current.method, rule.rule if rule is not None else UNMATCHED, response.status_code)
        series = self._series.get(key)
        if series is None:
            if key[0] not in METHODS:
                key = (OTHER_METHOD, *key[1:])
            series = (self.requests.labels(*key), self.duration.labels(*key[:2]))
            self._series[key] = series
        series[0].inc()
        series[1].observe(seconds)
        return response


def plant_created():
    """Count one newly stored plant."""
    current_app.extensions["plantstore.metrics"].plants_created.inc()


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
    registry = current_app.extensions["plantstore.metrics"].registry
    return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


def init_app(app):
    """Create the metrics, time every request, and serve /metrics."""
    db = app.extensions["plantstore.db"]
    metrics = app.extensions["plantstore.metrics"] = Metrics(db, app.logger)
    app.before_request(metrics.start_clock)
    app.after_request(metrics.count)
    app.register_blueprint(bp)
