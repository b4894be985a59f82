"""How `make bench-webhooks` gives the worker a scenario's receivers, as BENCH_WEBHOOK_RECEIVERS
says: `endpoints` (the default) registers each as a webhook endpoint through the API, with an
admin token, subscribed to plant.created; `operator` lists them in PLANTSTORE_WEBHOOK_URLS."""

import contextlib
import os
import secrets
import subprocess
import sys
import time

from harness.client import http_request
from harness.processes import ROOT

MODES = ("endpoints", "operator")
MODE = os.environ.get("BENCH_WEBHOOK_RECEIVERS", "endpoints")
# The receivers are nginx on this host, which the guard refuses unless allowed.
ALLOWED_NETWORKS = "127.0.0.0/8"
EVENTS = ["plant.created"]


def check_mode():
    """Stop with one line when BENCH_WEBHOOK_RECEIVERS is neither mode."""
    if MODE not in MODES:
        raise SystemExit(f"BENCH_WEBHOOK_RECEIVERS must be one of {', '.join(MODES)}: {MODE!r}")


def described():
    """The report's words for how the receivers were given."""
    if MODE == "endpoints":
        return "receivers registered as endpoints through the API"
    return "receivers in PLANTSTORE_WEBHOOK_URLS (the operator's)"


class Registration:
    """The processes' environment, and each scenario's receivers given in MODE's way."""

    def __init__(self, env):
        self.env = env
        if MODE == "endpoints":
            self.env = {**env, "PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS": ALLOWED_NETWORKS}
            self.token = admin_token(self.env)

    def environ(self, urls):
        """The web's and the worker's environment for a scenario whose receivers are urls."""
        if MODE == "operator":
            return {**self.env, "PLANTSTORE_WEBHOOK_URLS": ",".join(urls)}
        return self.env

    @contextlib.contextmanager
    def registered(self, web, urls):
        """Yield the deliveries table's receiver for each of urls (an endpoint's id, or the URL
        in operator mode); endpoints are registered on web, and deleted once the block is done."""
        if MODE == "operator":
            yield list(urls)
            return
        ids = [self._call(web, "POST", "/webhooks", 201, url)["id"] for url in urls]
        # The worker claims for endpoints new since its last round from its next one on: the
        # scenario starts once it knows them, as it knows the operator's receivers from its start.
        time.sleep(2 * float(self.env.get("PLANTSTORE_WEBHOOK_POLL_INTERVAL", "1")))
        yield ids
        # Not in a finally: after a failure, web may be gone, and Outbox.empty() removes them.
        for endpoint_id in ids:
            self._call(web, "DELETE", f"/webhooks/{endpoint_id}", 204)

    def _call(self, web, method, path, expected, url=None):
        body = {"url": url, "events": EVENTS, "description": "bench"} if url else None
        headers = {"Authorization": f"Bearer {self.token}"}
        response = http_request(web.port, method, path, body, headers)
        if response.status != expected:
            raise SystemExit(f"{method} {path} was answered {response.status}: {response.body!r}")
        return response.json() if response.body else None


def admin_token(env):
    """A new admin token, made as an operator makes one (`tokens create --admin`)."""
    command = [sys.executable, "-m", "flask", "--app", "wsgi"]
    # A fresh name: a PostgreSQL database of BENCH_DATABASE_URL keeps the tokens of past runs.
    command += ["tokens", "create", f"bench-admin-{secrets.token_hex(4)}", "--admin"]
    made = subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return made.stdout.strip().splitlines()[-1]
