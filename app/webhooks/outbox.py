"""The outbox: a published event is written in the transaction of the change it announces."""

import json
from urllib.parse import urlsplit, urlunsplit

from ..database import utcnow
from . import fanout


class Outbox:
    """Writes each published event once, whatever the number of receivers: the worker fans it
    out to them (fanout.py)."""

    def __init__(self, db):
        self.db = db

    def publish(self, cursor, event_type, body):
        """Write the event (an EventType, and body, a dict) in the cursor's transaction."""
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        fanout.publish(self.db, cursor, event_type.name, text, utcnow())


def receiver_name(url):
    """How a receiver is shown in logs, status and /metrics: its URL without the user name,
    password or query string, any of which may hold a secret."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
