"""The feed's gauges of /metrics, read from the database at each scrape: the events written but
held back, not yet in the feed because a transaction older than theirs still runs somewhere in
the cluster (PostgreSQL), which the feed's followers and the webhooks wait for."""

from prometheus_client.core import GaugeMetricFamily

from ..database import DatabaseFailure, now
from . import store


class HeldBackCollector:
    """plantstore_events_held_back and plantstore_events_held_back_oldest_seconds."""

    def __init__(self, db, logger):
        self.db = db
        self.logger = logger

    def describe(self):
        """The gauges' names, so that registering them reads no database."""
        return self._families(0, 0.0)

    def collect(self):
        """The gauges now; nothing when the database fails."""
        try:
            count, oldest = store.held_back(self.db)
            held = age(self.db, oldest)
        except DatabaseFailure as error:
            self.logger.warning("metrics: the feed not read: %s", error.__class__.__name__)
            return []
        return self._families(count, held)

    @staticmethod
    def _families(count, oldest_age):
        held = GaugeMetricFamily(
            "plantstore_events_held_back",
            "Events written but not yet in the feed: a transaction older than theirs still runs.",
        )
        held.add_metric([], count)
        oldest = GaugeMetricFamily(
            "plantstore_events_held_back_oldest_seconds",
            "Age of the oldest event held back (0 when none is).",
        )
        oldest.add_metric([], oldest_age)
        return [held, oldest]


def age(db, oldest):
    """Seconds since oldest (a datetime the database wrote) by the database's clock, or 0 when
    there is none."""
    return 0.0 if oldest is None else max(0.0, (now(db) - oldest).total_seconds())
