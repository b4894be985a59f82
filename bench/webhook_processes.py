"""What `make bench-webhooks` runs beside gunicorn: the receivers, the worker, and a direct
look at the outbox."""

import contextlib
import datetime
import json
import os
import pathlib
import socket
import subprocess
import sys

from sqlalchemy import create_engine, text

from bench import servers

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# The receiver: nginx answering at once, logging when each delivery arrived and its id.
RECEIVER_SITE = """
log_format hook '$msec $http_webhook_id';
server {{
    listen 127.0.0.1:{port};
    access_log {dir}/hooks.log hook;
    keepalive_requests 100000;
    location /ok {{ return 204; }}
    location /fail {{ return 500; }}
}}
"""
OLDEST_PENDING = "SELECT MIN(created_at) FROM deliveries WHERE status = 'pending'"
PENDING = "SELECT COUNT(*) FROM deliveries WHERE status = 'pending'"
DELIVERED = "SELECT COUNT(*) FROM deliveries WHERE status = 'delivered'"


class Receiver:
    """nginx on its own port: /ok answers 204, /fail answers 500; hooks.log has each arrival."""

    def __init__(self, folder):
        self.port = servers.free_port()
        self.folder = folder
        folder.mkdir()
        (folder / "plantstore.conf").write_text(RECEIVER_SITE.format(port=self.port, dir=folder))
        user = "user root;" if os.geteuid() == 0 else ""
        (folder / "nginx.conf").write_text(servers.NGINX_MAIN.format(dir=folder, user=user))
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None

    def __enter__(self):
        conf, error_log = str(self.folder / "nginx.conf"), str(self.folder / "error.log")
        command = [servers.nginx_binary(), "-p", str(self.folder), "-e", error_log, "-c", conf]
        self.process = subprocess.Popen(command, start_new_session=True)
        servers.wait_until(self._listening, servers.TIMEOUT, "the receiver's nginx")
        return self

    def _listening(self):
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
            return True
        return False

    def arrivals(self):
        """{delivery id: when it arrived, Unix seconds} of every request to the receiver."""
        log = self.folder / "hooks.log"
        if not log.exists():
            return {}
        pairs = (line.split() for line in log.read_text().splitlines())
        return {pair[1]: float(pair[0]) for pair in pairs if len(pair) == 2}

    def cpu_ticks(self):
        """CPU time of nginx's master and workers so far, in clock ticks."""
        master = self.process.pid
        children = pathlib.Path(f"/proc/{master}/task/{master}/children").read_text().split()
        return sum(servers.cpu_ticks(pid) for pid in [master, *map(int, children)])

    def __exit__(self, *exc_info):
        self.process.terminate()
        self.process.wait(timeout=30)


@contextlib.contextmanager
def hung_receiver():
    """A port that takes connections and never answers: listening, never accepting."""
    with socket.create_server(("127.0.0.1", 0), backlog=4096) as sock:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/hook"


class Worker:
    """The Procfile's worker line, `flask --app wsgi webhooks run`, with its log in a file."""

    def __init__(self, env, folder):
        self.env = env
        self.log = folder / "worker.log"
        self.process = None

    def __enter__(self):
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "flask", "--app", "wsgi", "webhooks", "run"],
                cwd=servers.ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        servers.wait_until(
            lambda: "Delivering webhooks" in self.log.read_text(), servers.TIMEOUT, "the worker"
        )
        return self

    def cpu_seconds(self):
        """CPU time the worker used so far."""
        return servers.cpu_ticks(self.process.pid) / CLOCK_TICKS

    def __exit__(self, *exc_info):
        self.process.terminate()
        self.process.wait(timeout=60)


class Outbox:
    """The deliveries table, read directly (as an operator's query would) while the load runs."""

    def __init__(self, url):
        self.engine = create_engine(url)

    def scalar(self, query):
        """One value."""
        with self.engine.connect() as conn:
            return conn.execute(text(query)).scalar_one()

    def oldest_pending_age(self):
        """Seconds since the oldest pending delivery was created; 0 when none is pending."""
        oldest = self.scalar(OLDEST_PENDING)
        if oldest is None:
            return 0.0
        if isinstance(oldest, str):  # SQLite keeps UTC text
            oldest = datetime.datetime.fromisoformat(oldest)
        if oldest.tzinfo is None:
            oldest = oldest.replace(tzinfo=datetime.UTC)
        return (datetime.datetime.now(datetime.UTC) - oldest).total_seconds()

    def bodies(self, url):
        """{delivery id: plant id} of the deliveries to url."""
        query = text("SELECT id, body FROM deliveries WHERE url = :url")
        with self.engine.connect() as conn:
            return {row.id: json.loads(row.body)["id"] for row in conn.execute(query, {"url": url})}

    def empty(self):
        """Delete every plant and delivery."""
        with self.engine.begin() as conn:
            conn.execute(text("DELETE FROM deliveries"))
            conn.execute(text("DELETE FROM plants"))
