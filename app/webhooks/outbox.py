"""The outbox (the Outbox of app/events.py): a published event is written in the transaction of
the change it announces."""

import json

from ..database import utcnow
from .tables import endpoints, events

# What wanted() gives for an event the operator's receivers get: every one is wanted.
ALWAYS = "TRUE"


class Outbox:
    """Writes each published event once, whatever the number of receivers: the worker fans it
    out to them (worker/fanout.py). An event is written when somebody would receive it: the
    operator's receivers, or an endpoint enabled and subscribed to it when the change is made."""

    def __init__(self, db, operator_receivers):
        self.db = db
        self.operator_receivers = bool(operator_receivers)
        self._wanted = {}

    def wanted(self, event_type):
        """SQL, true when somebody would receive an event of event_type (an EventType)."""
        sql = self._wanted.get(event_type.name)
        if sql is None:
            if self.operator_receivers and event_type.operator:
                sql = ALWAYS
            else:
                sql = endpoints.subscribed(event_type.name)
            self._wanted[event_type.name] = sql
        return sql

    def publish(self, cursor, event_type, body):
        """Write the event (an EventType, and body, a dict) in the cursor's transaction."""
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        events.publish(self.db, cursor, event_type.name, text, utcnow())
