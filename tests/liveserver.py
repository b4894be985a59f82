"""Real gunicorn processes for end-to-end tests, and a plain HTTP client for them."""

import http.client
import json
import os
import pathlib
import random
import signal
import socket
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
START_TIMEOUT = 30
EPHEMERAL_RANGE = pathlib.Path("/proc/sys/net/ipv4/ip_local_port_range")
# What a request to a server that is killed or stopped can raise.
CONNECTION_ERRORS = (OSError, http.client.HTTPException)


def free_port():
    """A TCP port nobody uses now, below the kernel's range for outgoing connections.

    A port from that range (what binding port 0 gives) can become some client's source port
    between this check and the server's bind: "Address already in use" on a busy machine.
    """
    first_ephemeral = int(EPHEMERAL_RANGE.read_text().split()[0])
    while True:
        port = random.randrange(10000, first_ephemeral)
        with socket.socket() as sock:
            try:
                sock.bind(("0.0.0.0", port))
            except OSError:
                continue
        return port


def wait_for(condition, timeout, message):
    """Poll condition until true; after timeout seconds fail with message (or its result)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout}s: {message() if callable(message) else message}"
            )
        time.sleep(0.05)


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


def race_creates(servers, plant_id, count=24):
    """POST plant_id from count threads at once, spread over servers, half of them with another
    name; assert that one content won everywhere and return its name."""
    barrier, results = threading.Barrier(count), []

    def create(number):
        barrier.wait()
        name = "Basil" if number // len(servers) % 2 else "Mint"
        server = servers[number % len(servers)]
        response = server.request("POST", "/plants", {"id": plant_id, "name": name})
        results.append((response.status, response.json()))

    threads = [threading.Thread(target=create, args=(number,)) for number in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == count
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


def start_worker(env, log):
    """Start `flask --app wsgi webhooks run` with env, its output going to log (a file)."""
    return subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "wsgi", "webhooks", "run"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


class Response:
    """Status, headers and decoded body of one HTTP exchange."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        """The body parsed as JSON."""
        return json.loads(self.body)


class Servers:
    """The gunicorn instances a fixture starts in folder, all with token, stopped together."""

    def __init__(self, folder, token):
        self.folder = folder
        self.token = token
        self.servers = []

    def start(self, database_url, workers=2, release=True, **env):
        """Start one instance on database_url with extra PLANTSTORE_* settings; return it."""
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


class LiveServer:
    """One gunicorn master with its workers, started from the project root like the Procfile."""

    def __init__(self, log_path, env, token):
        self.log_path = log_path
        self.env = env
        self.token = token
        self.port = free_port()
        self.process = None

    def start(self, release=True):
        """Run the Procfile's release step, start gunicorn, and wait until /healthz answers
        (200 after the release step; anything without it)."""
        if release:
            self.cli("init-db")
        env = {**os.environ, **self.env, "PORT": str(self.port)}
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "wsgi:app"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        ready = {200} if release else {200, 503}
        wait_for(
            lambda: self._healthz() in ready,
            START_TIMEOUT,
            lambda: f"gunicorn to serve; log:\n{self.log()}",
        )

    def cli(self, *args):
        """Run `flask --app wsgi ARGS` on this server's settings; return what it printed."""
        result = subprocess.run(
            [sys.executable, "-m", "flask", "--app", "wsgi", *args],
            cwd=ROOT,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    def _healthz(self):
        if self.process.poll() is not None:
            raise AssertionError(f"gunicorn exited; log:\n{self.log()}")
        try:
            return self.request("GET", "/healthz").status
        except CONNECTION_ERRORS:
            return None

    def log(self):
        """Everything gunicorn and the app wrote so far."""
        return self.log_path.read_text(errors="replace")

    def kill(self):
        """SIGKILL the master and every worker at once."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self):
        """Stop at once (gunicorn's quick shutdown), or kill after a bounded wait.

        A graceful stop would wait for kept-alive connections that a test left idle.
        """
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()

    def request(self, method, path, body=None, headers=None, token=None):
        """One HTTP request to this server, with its token on /plants unless told otherwise."""
        headers = dict(headers or {})
        if token or (token is None and path.startswith("/plants")):
            headers.setdefault("Authorization", f"Bearer {token or self.token}")
        return http_request(self.port, method, path, body, headers)


def http_request(port, method, path, body=None, headers=None, source="127.0.0.1"):
    """One HTTP request on a fresh connection from source; a dict or list body is sent as JSON."""
    headers = dict(headers or {})
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        chunked = headers.get("Transfer-Encoding") == "chunked"
        conn.request(method, path, body=body, headers=headers, encode_chunked=chunked)
        response = conn.getresponse()
        return Response(response.status, response.headers, response.read())
    finally:
        conn.close()


def raw_exchange(port, data, half_close=True, timeout=30):
    """Send data as it is on a fresh connection, half-close it if told, and read one answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return Response(response.status, response.headers, response.read())
