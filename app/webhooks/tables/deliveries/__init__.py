"""The deliveries table (the outbox), and the statuses a delivery goes through; the shapes it
travels in are in records.py."""

import enum

from sqlalchemy import Column, Index, Integer, String, Table, Text, text

from ....database import metadata
from ....database.column_types import EnumText, UTCDateTime


class DeliveryStatus(enum.StrEnum):
    """Where a delivery stands, as its status column keeps it."""

    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


PENDING, DELIVERED, FAILED = DeliveryStatus
STATUSES = tuple(DeliveryStatus)
LOST = "worker lost during the last attempt"
# The partial indexes' conditions, which a statement repeats word for word to be served by one
# (SQLite uses a partial index only for a query whose WHERE has its terms as they are written).
PENDING_WHERE = "status = 'pending'"
DELIVERED_WHERE = "status = 'delivered'"
FAILED_WHERE = "status = 'failed'"

# One row per event and receiver, written by the worker as it fans events out (fanout.py).
deliveries = Table(
    "deliveries",
    metadata,
    Column("id", String(32), primary_key=True),
    # The operator's receiver URL, or the id of an endpoint registered through the API.
    Column("receiver", Text, nullable=False),
    # The event type (plant.created), sent as X-Plantstore-Event.
    Column("event_type", String(50), nullable=False),
    # The exact bytes that are signed and sent, on every attempt.
    Column("body", Text, nullable=False),
    Column("status", EnumText(DeliveryStatus, String(10)), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("next_attempt_at", UTCDateTime, nullable=False),
    # A worker's claim: nobody else sends the delivery before this time.
    Column("claimed_until", UTCDateTime),
    Column("delivered_at", UTCDateTime),
    Column("last_error", Text),
    Column("last_attempt_at", UTCDateTime),
    # The status of the last answer; None when there was none (refused, timed out).
    Column("response_status", Integer),
    # Its event's id in the feed, sent as Plantstore-Event-Id; None for a delivery made before.
    Column("event_id", String(64)),
    # The first 1024 bytes of the last answer's body, decoded; None when there was no answer.
    Column("response_body", Text),
    # An endpoint's log, newest first, a page at a time.
    Index("deliveries_receiver_created", "receiver", "created_at"),
    # A pending or delivered row is in one of these at a time, by its status (each partial),
    # so that it is in as many indexes as before there were these. The pending ones by receiver and
    # due time: what a round looks for work in and claims from, and what is counted (totals.py),
    # at the cost of what waits, never of what was sent.
    Index(
        "deliveries_pending",
        "receiver",
        "next_attempt_at",
        "created_at",
        postgresql_where=text(PENDING_WHERE),
        sqlite_where=text(PENDING_WHERE),
    ),
    # The delivered ones by when they were delivered (a delivered row's next_attempt_at), for
    # the retention: the oldest first, whatever their receiver, one range.
    Index(
        "deliveries_delivered",
        "next_attempt_at",
        postgresql_where=text(DELIVERED_WHERE),
        sqlite_where=text(DELIVERED_WHERE),
    ),
    # The failed ones by age, listed a page at a time, and by receiver, counted per receiver
    # (a failed row is in both: failed rows are few, and an index that gives a count's order
    # would otherwise lead SQLite's planner to the endpoint log's, across every delivery).
    Index(
        "deliveries_failed",
        "created_at",
        "id",
        postgresql_where=text(FAILED_WHERE),
        sqlite_where=text(FAILED_WHERE),
    ),
    Index(
        "deliveries_failed_receiver",
        "receiver",
        "created_at",
        postgresql_where=text(FAILED_WHERE),
        sqlite_where=text(FAILED_WHERE),
    ),
)
