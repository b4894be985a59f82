"""The outbox (the Outbox of app/events.py): a published event is written in the transaction of
the change it announces."""

import orjson

from ..database import utcnow
from .tables import events


class Outbox:
    """Writes each published event once, whatever the number of receivers: it is the change's
    entry in the feed, and the worker fans it out to its receivers (worker/fanout.py)."""

    def __init__(self, db):
        self.db = db

    def publish(self, cursor, event_type, body):
        """Write the event (an EventType, and body, a dict) in the cursor's transaction."""
        # Compact, and UTF-8 as it is: the bytes json.dumps(separators=(",", ":"),
        # ensure_ascii=False) writes, at a fraction of its cost on every change.
        text = orjson.dumps(body).decode()
        events.publish(self.db, cursor, event_type.name, text, utcnow())
