"""The outbox: a published event becomes one pending delivery per receiver, written in the
transaction of the change it announces."""

import json
import uuid
from urllib.parse import urlsplit, urlunsplit

from ..database import utcnow
from . import store


class Outbox:
    """Writes an event's deliveries to the configured receivers (PLANTSTORE_WEBHOOK_URLS)."""

    def __init__(self, db, urls):
        self.db = db
        self.urls = urls

    def publish(self, cursor, event_type, body):
        """One pending delivery of body (a dict) per receiver, in the cursor's transaction."""
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        now = utcnow()
        store.enqueue(
            self.db,
            cursor,
            [
                {
                    "id": uuid.uuid4().hex,
                    "url": url,
                    "event": event_type.name,
                    "body": text,
                    "status": store.PENDING,
                    "attempts": 0,
                    "created_at": now,
                    "next_attempt_at": now,
                }
                for url in self.urls
            ],
        )


def receiver_name(url):
    """How a receiver is shown in logs, status and /metrics: its URL without the user name,
    password or query string, any of which may hold a secret."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
