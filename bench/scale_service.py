"""`make bench-scale`'s service: the app on one database, driven through its own code paths
(its WSGI app, its CLI, its worker's Ledger), and the operations measured on it.

An operation is a function of the Service that does what must come first (a plant changed, so
that a round has an event to fan out) and returns the call that is measured; the Service's
settle() then does, unmeasured, what the worker's loop does with a round's result.
"""

import base64
import os
import time

from app import create_app, database
from app.webhooks.worker.ledger import WINDOWS_INTERVAL
from app.webhooks.worker.loop import Worker
from bench.scale_fill import RECEIVERS, RETENTION

TOKEN = "bench-token-0123456789abcdefghijklmnopqrstuvwxyz"
# The deliveries every retention pass deletes at most: a few passes take only expired rows,
# even at 1,000 rows.
BATCH = 50
# Endpoints listen on a port nothing answers on; the worker never sends in this bench.
ENDPOINT_URL = "http://127.0.0.1:9/endpoint-{}"
# The one endpoint that takes the event a fan-out round sends, and the others' type.
SUBSCRIBED, OTHER = "plant.updated", "plant.deleted"
FEED_PAGE = "/events?types=plant.deleted&limit=100"
# Endpoints' secrets sealed as a deployment seals them, with a key of this run's own, which the
# process under callgrind inherits.
os.environ.setdefault(
    "PLANTSTORE_WEBHOOK_KEYS", base64.urlsafe_b64encode(os.urandom(32)).decode("ascii")
)


def settings(url, endpoints):
    """The app's settings on the database at url, with room for endpoints endpoints."""
    return {
        "DATABASE_URL": url,
        "API_TOKENS": TOKEN,
        "WEBHOOK_URLS": ",".join(RECEIVERS),
        "WEBHOOK_SECRET": "bench-webhook-secret",
        "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
        "WEBHOOK_MAX_ENDPOINTS": endpoints,
        "WEBHOOK_RETENTION": RETENTION.total_seconds(),
        "WEBHOOK_RETENTION_BATCH": BATCH,
        "EVENT_RETENTION": RETENTION.total_seconds(),
    }


class Service:
    """The app on the database at url, its test client and CLI runner, and a worker of it
    whose loop is played by hand: its Windows ask, its Ledger runs the round."""

    def __init__(self, url, endpoints):
        self.app = create_app(settings(url, endpoints))
        self.client = self.app.test_client()
        self.runner = self.app.test_cli_runner()
        self.worker = None
        self.admin = None
        self.registered = self.changes = 0
        self.rounds = []

    def cli(self, *args):
        """Run `flask --app wsgi ARGS` in process; its output, which must be a success."""
        result = self.runner.invoke(args=list(args))
        assert result.exit_code == 0, (args, result.output, result.exception)
        return result.output

    def request(self, method, path, token=TOKEN, **kwargs):
        """A request through the app's WSGI callable; its answer, which must be a 2xx."""
        headers = {"Authorization": f"Bearer {token}"}
        response = self.client.open(path, method=method, headers=headers, **kwargs)
        assert response.status_code < 300, (path, response.status_code, response.data[:200])
        return response

    def init_db(self):
        """The schema, made by the service's migrations as `init-db` makes it."""
        self.cli("init-db")

    def register(self, count, events):
        """Register count endpoints through POST /webhooks, subscribed to events."""
        if self.admin is None:
            self.admin = self.cli("tokens", "create", "bench-admin", "--admin").split()[-1]
        for _ in range(count):
            self.registered += 1
            body = {"url": ENDPOINT_URL.format(self.registered), "events": list(events)}
            self.request("POST", "/webhooks", self.admin, json=body)

    def start_worker(self):
        """The worker, as `webhooks run` makes it, before its first round."""
        self.worker = Worker(self.app)

    def round_call(self):
        """The call of one round as the worker's loop makes it, with what its windows want."""
        worker = self.worker
        wants = worker.windows.wants(worker.targets.by_receiver)
        sizes = worker.windows.resized()
        # The windows are written every WINDOWS_INTERVAL: an idle worker's round always does.
        time.sleep(WINDOWS_INTERVAL)

        def call():
            self.rounds.append((worker.ledger.round([], [], wants, sizes, worker.kept), wants))

        return call

    def settle(self):
        """What the loop does after a round: take up new receivers, hold what it claimed."""
        worker = self.worker
        for (claimed, targets), wants in self.rounds:
            worker.targets = targets
            for key in targets.by_receiver:
                worker.windows.add(key)
            worker.windows.hold(claimed, wants, time.monotonic() + worker.timeout)
            worker.windows.forget(targets.by_receiver)
        self.rounds.clear()

    def change_plant(self):
        """PATCH a plant's name: one plant.updated event for the fan-out."""
        self.changes += 1
        body = f'{{"name": "renamed {self.changes}"}}'
        self.request("PATCH", "/plants/1", data=body, content_type="application/merge-patch+json")

    def close(self):
        """Close the database's connections."""
        database.of(self.app).dispose()


def warm_up(service, operation):
    """Run operation twice, unmeasured: the first round after endpoints were registered finds
    them, the second writes their windows, as a running worker's first rounds do."""
    for _ in range(2):
        operation(service)()
        service.settle()


def metrics(service):
    """GET /metrics."""
    return lambda: service.request("GET", "/metrics")


def status(service):
    """`flask --app wsgi webhooks status`."""
    return lambda: service.cli("webhooks", "status")


def feed_page(service):
    """A page of the feed of a rare type."""
    return lambda: service.request("GET", FEED_PAGE)


def retention(service):
    """The worker's retention pass: a batch of old deliveries and of old events."""
    worker = service.worker
    return lambda: worker.ledger.tidy(worker.retention, worker.retention_batch)


def idle_round(service):
    """A round of the worker when nothing is due."""
    return service.round_call()


def fanout_round(service):
    """A round of the worker that fans out one event, which one endpoint takes."""
    service.change_plant()
    return service.round_call()


# Measured at each size, with one endpoint; then the rounds again with many.
ROWS = {
    "GET /metrics": metrics,
    "webhooks status": status,
    f"GET {FEED_PAGE}": feed_page,
    "retention pass (Ledger.tidy)": retention,
}
ROUNDS = {"idle round": idle_round, "fan-out round": fanout_round}
