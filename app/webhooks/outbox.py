"""The outbox (the Outbox of app/events.py): a published event is written in the transaction of
the change it announces."""

import json

from ..database import utcnow
from .tables import events

# The exact text of an event's body, made once per event: compact, and UTF-8 as it is.
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class Outbox:
    """Writes each published event once, whatever the number of receivers: it is the change's
    entry in the feed, and the worker fans it out to its receivers (worker/fanout.py)."""

    def __init__(self, db):
        self.db = db

    def publish(self, cursor, event_type, body):
        """Write the event (an EventType, and body, a dict) in the cursor's transaction."""
        events.publish(self.db, cursor, event_type.name, _ENCODE(body), utcnow())
