"""Real gunicorn processes for end-to-end tests, with the test token, and what tests do to them."""

import os
import subprocess
import sys
import threading

from app import FEATURES, create_app, database
from app.config_spec import defaults
from app.database import migrate
from harness.client import CONNECTION_ERRORS, http_request
from harness.gunicorn import Gunicorn
from harness.processes import ROOT, wait_for


def access_line(servers, request_id):
    """The gunicorn access log line of the request with this id, from whichever instance,
    without its timestamp."""
    wait_for(
        lambda: any(f"request_id={request_id}" in server.log() for server in servers),
        10,
        f"an access log line for {request_id}",
    )
    logs = "".join(server.log() for server in servers)
    line = next(line for line in logs.splitlines() if f"request_id={request_id}" in line)
    return line.split(" ", 1)[1]  # what follows the line's timestamp


def race(count, attempt):
    """Call attempt(number) for number 0 to count - 1, from as many threads let go at once;
    what each returned, in no particular order."""
    barrier, results = threading.Barrier(count), []

    def run(number):
        barrier.wait()
        results.append(attempt(number))

    threads = [threading.Thread(target=run, args=(number,)) for number in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == count
    return results


def race_creates(servers, plant_id, count=24):
    """POST plant_id from count threads at once, spread over servers, half of them with another
    name; assert that one content won everywhere and return its name."""

    def create(number):
        name = "Basil" if number // len(servers) % 2 else "Mint"
        server = servers[number % len(servers)]
        response = server.request("POST", "/plants", {"id": plant_id, "name": name})
        return response.status, response.json()

    results = race(count, create)
    assert {status for status, _ in results} <= {200, 409}
    winners = {body["name"] for status, body in results if status == 200}
    assert len(winners) == 1
    assert sum(status == 409 for status, _ in results) == count // 2
    return winners.pop()


def create_until_killed(server, acknowledged_at_least, clients=4):
    """Create plants from several clients until that many were answered 200, then kill -9
    the server mid-stream; return the ids that were acknowledged."""
    acknowledged, stop = [], threading.Event()

    def create(offset):
        for number in range(offset, 1_000_000, clients):
            if stop.is_set():
                return
            try:
                response = server.request(
                    "POST", "/plants", {"id": number, "name": f"plant {number}"}
                )
            except CONNECTION_ERRORS:
                return
            if response.status == 200:
                acknowledged.append(number)

    threads = [threading.Thread(target=create, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    wait_for(
        lambda: len(acknowledged) >= acknowledged_at_least,
        60,
        f"{acknowledged_at_least} acknowledged creates",
    )
    server.kill()
    stop.set()
    for thread in threads:
        thread.join()
    return acknowledged


def environment(settings):
    """Settings as PLANTSTORE_* environment variables."""
    return {f"PLANTSTORE_{key}": str(value) for key, value in settings.items()}


def settings_of(env):
    """The PLANTSTORE_* settings of env, as create_app's overrides (the other way round)."""
    prefix = "PLANTSTORE_"
    return {
        key.removeprefix(prefix): value
        for key, value in env.items()
        if key.startswith(prefix) and key.removeprefix(prefix) in defaults(FEATURES)
    }


class Servers:
    """The gunicorn instances a fixture starts in folder, all with token, stopped together."""

    def __init__(self, folder, token):
        self.folder = folder
        self.token = token
        self.servers = []

    def start(self, database_url, workers=1, release=True, **env):
        """Start one instance on database_url with extra PLANTSTORE_* settings; return it.

        One gunicorn worker unless a test needs more: each is a Python process importing the
        app, which the whole suite pays for on two cores.
        """
        env = {
            "PLANTSTORE_DATABASE_URL": database_url,
            "PLANTSTORE_API_TOKENS": self.token,
            "WEB_CONCURRENCY": str(workers),
            **env,
        }
        server = LiveServer(self.folder / f"gunicorn-{len(self.servers)}.log", env, self.token)
        self.servers.append(server)
        server.start(release)
        return server

    def stop(self):
        """Stop every instance started."""
        for server in self.servers:
            server.stop()


def upgrade(database_url):
    """What the release step (`flask --app wsgi init-db`) does, in this process: it spares a
    process importing the app for every server (the command itself has tests of its own)."""
    app = create_app({"DATABASE_URL": database_url})
    migrate.upgrade(database.of(app))
    database.of(app).dispose()


class LiveServer(Gunicorn):
    """One gunicorn master with its workers, with extra settings env and the token on /plants."""

    def __init__(self, log_path, env, token):
        super().__init__({**os.environ, **env}, log_path)
        self.env = env
        self.token = token

    def start(self, release=True):
        """Run the Procfile's release step, start gunicorn, and wait until /healthz answers
        (200 after the release step; anything without it)."""
        if release:
            upgrade(self.env["PLANTSTORE_DATABASE_URL"])
        super().start()
        self.wait_ready("/healthz", statuses={200} if release else {200, 503})

    def cli(self, *args):
        """Run the command `flask --app wsgi ARGS` on this server's settings, in this process;
        return what it printed.

        Where a process of its own is not the point: one would spend a second of CPU importing
        the app (command() runs one, for the cases where it is).
        """
        app = create_app(settings_of(self.env))
        try:
            result = app.test_cli_runner().invoke(args=list(args))
        finally:
            database.of(app).dispose()
        assert result.exit_code == 0, (result.output, result.exc_info)
        return result.stdout

    def command(self, *args):
        """Run `flask --app wsgi ARGS`, a process of its own, on this server's settings; return
        what it printed."""
        result = subprocess.run(
            [sys.executable, "-m", "flask", "--app", "wsgi", *args],
            cwd=ROOT,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    def request(self, method, path, body=None, headers=None, token=None):
        """One HTTP request to this server, with its token on /plants unless told otherwise."""
        headers = dict(headers or {})
        if token or (token is None and path.startswith("/plants")):
            headers.setdefault("Authorization", f"Bearer {token or self.token}")
        return http_request(self.port, method, path, body, headers)
