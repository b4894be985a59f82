"""The outbox rows a create writes: one pending delivery per receiver, in the plant's
transaction."""

import json
import uuid
from urllib.parse import urlsplit, urlunsplit

from flask import current_app

from ..database import utcnow
from . import store

EVENT = "plant.created"


def outbox_rows(plant):
    """One pending delivery per configured receiver, announcing plant (a loaded NewPlant)."""
    urls = current_app.config["WEBHOOK_URLS"]
    if not urls:
        return []
    body = json.dumps(plant, separators=(",", ":"), ensure_ascii=False)
    now = utcnow()
    return [
        {
            "id": uuid.uuid4().hex,
            "url": url,
            "event": EVENT,
            "body": body,
            "status": store.PENDING,
            "attempts": 0,
            "created_at": now,
            "next_attempt_at": now,
        }
        for url in urls
    ]


def receiver_name(url):
    """How a receiver is shown in logs, status and /metrics: its URL without the user name,
    password or query string, any of which may hold a secret."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
