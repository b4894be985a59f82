"""The webhook gauges of /metrics, per receiver, read from the database at each scrape."""

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from ...database import DatabaseFailure
from ..receivers import receiver_name
from ..tables import window_sizes
from ..tables.deliveries import FAILED, PENDING
from ..tables.disables import by_reason
from .summary import per_receiver


class DeliveryCollector:
    """Pending and failed deliveries, the oldest pending age and the window of each receiver,
    whichever host delivers them, the throttle_rate of each endpoint that has one, and the
    endpoints the workers disabled."""

    def __init__(self, db, urls, logger):
        self.db = db
        self.urls = urls
        self.logger = logger

    def describe(self):
        """The gauges' names, so that registering them reads no database."""
        return self._families({}, {}, {})

    def collect(self):
        """The gauges now; nothing when the database fails."""
        try:
            receivers = per_receiver(self.db, self.urls)
            disables = by_reason(self.db)
            sizes = window_sizes.live(self.db)
        except DatabaseFailure as error:
            self.logger.warning(
                "metrics: webhook deliveries not read: %s", error.__class__.__name__
            )
            return []
        return self._families(receivers, disables, sizes)

    @staticmethod
    def _families(receivers, disables, sizes):
        deliveries = GaugeMetricFamily(
            "plantstore_webhook_deliveries",
            "Webhook deliveries pending and failed, by receiver.",
            labels=["receiver", "status"],
        )
        oldest = GaugeMetricFamily(
            "plantstore_webhook_oldest_pending_seconds",
            "Age of a receiver's oldest pending webhook delivery (0 when none is pending).",
            labels=["receiver"],
        )
        throttle = GaugeMetricFamily(
            "plantstore_webhook_throttle_rate",
            "Most attempts a second a throttled webhook endpoint gets, over every worker.",
            labels=["endpoint"],
        )
        for name, receiver in receivers.items():
            deliveries.add_metric([name, PENDING], receiver.pending)
            deliveries.add_metric([name, FAILED], receiver.failed)
            oldest.add_metric([name], receiver.oldest_age)
            if receiver.throttle_rate is not None:
                throttle.add_metric([name], receiver.throttle_rate)
        disabled = CounterMetricFamily(
            "plantstore_webhook_endpoints_disabled",
            "Webhook endpoints the workers disabled, by reason (gone: a 410; failing: failures "
            "for PLANTSTORE_WEBHOOK_DISABLE_AFTER seconds).",
            labels=["reason"],
        )
        for reason in ("gone", "failing"):
            disabled.add_metric([reason], disables.get(reason, 0))
        window = GaugeMetricFamily(
            "plantstore_webhook_window",
            "Attempts in flight the running workers allow a receiver now, summed over them, "
            "as each last wrote it.",
            labels=["receiver"],
        )
        named = {}
        for key, size in sizes.items():
            named[receiver_name(key)] = named.get(receiver_name(key), 0) + size
        for name, size in named.items():
            window.add_metric([name], size)
        return [deliveries, oldest, throttle, disabled, window]
