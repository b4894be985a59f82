"""What `make bench-webhooks` runs beside gunicorn: the receiver, the worker, and a direct
look at the outbox."""

import datetime
import json
import os

from sqlalchemy import create_engine, text

from bench import servers
from harness import nginx, worker
from harness.processes import cpu_ticks

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# The receiver: nginx answering at once, or after 50 ms as a receiver far away does (Debian's
# echo module), logging when each delivery arrived and its id.
RECEIVER_SITE = """
log_format hook '$msec $http_webhook_id';
server {{
    listen 127.0.0.1:{port};
    access_log {dir}/hooks.log hook;
    keepalive_requests 100000;
    location /ok {{ return 204; }}
    location /fail {{ return 500; }}
    location /far {{ echo_sleep 0.05; echo_status 204; }}
}}
"""
ECHO_MODULE = "ngx_http_echo_module.so"
# An event the fan-out has not passed yet: no fan-out cursor at or after its place in the feed.
NOT_FANNED_OUT = (
    "FROM events WHERE NOT EXISTS (SELECT 1 FROM event_cursors WHERE name = 'fanout' "
    "AND (event_cursors.xid, event_cursors.id) >= (events.xid, events.id))"
)
# Pending: a delivery not yet delivered, or an event not yet fanned out to its receivers.
WAITING = (
    "SELECT created_at FROM deliveries WHERE status = 'pending' "
    f"UNION ALL SELECT created_at {NOT_FANNED_OUT}"
)
OLDEST_PENDING = f"SELECT MIN(created_at) FROM ({WAITING}) AS waiting"
PENDING = f"SELECT COUNT(*) FROM ({WAITING}) AS waiting"
WAITING_EVENTS = f"SELECT COUNT(*) {NOT_FANNED_OUT}"
DELIVERED = "SELECT COUNT(*) FROM deliveries WHERE status = 'delivered'"


class Receiver(nginx.Nginx):
    """nginx on its own port: /ok answers 204, /fail answers 500, /far 204 after 50 ms;
    hooks.log has each arrival."""

    def __init__(self, folder):
        super().__init__(folder, workers="auto", modules=[ECHO_MODULE])
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        self.start(RECEIVER_SITE.format(port=self.port, dir=self.folder))
        return self

    def arrivals(self):
        """{delivery id: when it arrived, Unix seconds} of every request to the receiver."""
        log = self.folder / "hooks.log"
        if not log.exists():
            return {}
        pairs = (line.split() for line in log.read_text().splitlines())
        return {pair[1]: float(pair[0]) for pair in pairs if len(pair) == 2}

    def cpu_ticks(self):
        """CPU time of nginx's master and workers so far, in clock ticks."""
        return servers.family_ticks(self.process.pid)


class Worker(worker.Worker):
    """The Procfile's worker line, with its log in folder."""

    def cpu_seconds(self):
        """CPU time the worker used so far."""
        return cpu_ticks(self.process.pid) / CLOCK_TICKS


class Outbox:
    """The events and deliveries tables, read directly (as an operator's query would) while the
    load runs."""

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

    def bodies(self, receiver):
        """{delivery id: plant id} of the deliveries to receiver, as the deliveries table names
        it: an endpoint's id, or an operator's receiver's URL."""
        query = text("SELECT id, body FROM deliveries WHERE receiver = :receiver")
        with self.engine.connect() as conn:
            rows = conn.execute(query, {"receiver": receiver})
            return {row.id: json.loads(row.body)["id"] for row in rows}

    def empty(self):
        """Delete every plant, event, delivery and endpoint (one a failed run left behind)."""
        with self.engine.begin() as conn:
            conn.execute(text("DELETE FROM events"))
            # The feed starts again: SQLite hands the deleted events' ids out anew.
            conn.execute(text("DELETE FROM event_cursors"))
            conn.execute(text("DELETE FROM deliveries"))
            conn.execute(text("DELETE FROM plants"))
            conn.execute(text("DELETE FROM webhook_endpoints"))
