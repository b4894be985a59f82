"""`make bench-scale`'s store, filled fast by direct SQL in the service's own schema: n plants,
n events and n deliveries, each row as the service writes it, and the feed's cursors as a
running service leaves them.

Rows are spread over SPAN, the newest written now: with a retention of RETENTION, the older
half is past it. One event in 10,000 is a plant.deleted, one in 10 a plant.updated, the rest
plant.created; the events before the first kept were deleted by the retention (its cursor says
so), and the fan-out has read every event. Deliveries are of plant.created events, to the
operator's RECEIVERS, each its share of every status: one in 1,000 failed, one in 50 pending
(retried later, not due), the rest delivered. PostgreSQL gets one transaction (its events
share its xid and snapshot, as one transaction's would), then VACUUM ANALYZE, as autovacuum
would after such a load.
"""

import datetime
import time

from sqlalchemy import create_engine, text

from app.events.ids import Place, public_id

SPAN = datetime.timedelta(days=14)
RETENTION = datetime.timedelta(days=7)
# The operator's receivers (PLANTSTORE_WEBHOOK_URLS) the deliveries go to: never sent to.
RECEIVERS = tuple(f"http://127.0.0.1:9/receiver-{number}" for number in range(4))
TABLES = ("plants", "events", "deliveries", "event_cursors")

# Each dialect's rows 1..n, a point in time from its microseconds since 1970 (the text the
# service's UTCDateTime stores on SQLite), and a delivery's id (32 hex digits, as uuid4().hex).
SERIES = {
    "sqlite": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :n) ",
    "postgresql": "",
}
FROM = {"sqlite": "FROM n", "postgresql": "FROM generate_series(1, :n) AS n(i)"}
TIME = {
    "sqlite": "(strftime('%Y-%m-%d %H:%M:%S', ({0}) / 1000000, 'unixepoch')"
    " || printf('.%06d', ({0}) % 1000000))",
    "postgresql": "(timestamptz 'epoch' + ({0}) * interval '1 microsecond')",
}
HEX_ID = {
    "sqlite": "printf('%08x%08x%08x%08x', i * 2654435761 % 4294967296,"
    " i * 2246822519 % 4294967296, i * 3266489917 % 4294967296, i * 668265263 % 4294967296)",
    "postgresql": "md5(i::text)",
}
# Which receiver row i goes to: each gets its share of every status.
RECEIVER = "(i + i / 50 + i / 1000)"
# Row i's time, in microseconds: spread over the span, the last one now.
AT = "(:start + i * CAST(:step AS BIGINT))"
TAG = "CASE WHEN i % 250 = 0 THEN 'rare' ELSE 'common' END"
BODY = f"""'{{"id":' || i || ',"name":"plant ' || i || '","tag":"' || {TAG} || '"}}'"""
EVENT_TYPE = (
    "CASE WHEN i % 10000 = 0 THEN 'plant.deleted' WHEN i % 10 = 0 THEN 'plant.updated' "
    "ELSE 'plant.created' END"
)
STATUS = "CASE WHEN i % 1000 = 0 THEN 'failed' WHEN i % 50 = 0 THEN 'pending' ELSE 'delivered' END"
PLANTS = "INSERT INTO plants (id, name, tag, created_at) SELECT i, 'plant ' || i, {tag}, {at} "
EVENTS = (
    "INSERT INTO events (id, epoch, xid, type, body, created_at, snapshot) "
    "SELECT :gone + i, :epoch, :xid, {type}, {body}, {at}, :snapshot "
)
DELIVERIES = """INSERT INTO deliveries (id, receiver, event_type, body, status, attempts,
  created_at, next_attempt_at, delivered_at, last_error, last_attempt_at, response_status,
  event_id, response_body)
SELECT {hex_id}, :receiver || ({receiver} % {receivers}), 'plant.created', {body}, {status},
  CASE {status} WHEN 'delivered' THEN 1 WHEN 'failed' THEN 10 ELSE 3 END, {at},
  CASE {status} WHEN 'pending' THEN {later} ELSE {answered} END,
  CASE {status} WHEN 'delivered' THEN {answered} END,
  CASE {status} WHEN 'delivered' THEN NULL ELSE 'HTTP 503' END, {answered},
  CASE {status} WHEN 'delivered' THEN 204 ELSE 503 END, :event_id || (:gone + i),
  CASE {status} WHEN 'delivered' THEN '' ELSE 'unavailable' END """
CURSORS = (
    "INSERT INTO event_cursors (name, epoch, xid, id) "
    "VALUES ('fanout', :epoch, :xid, :last), ('deleted', :epoch, :xid, :gone)"
)
# PostgreSQL: the events' place as the columns' defaults would write it, and the id sequence
# moved past the ids written here.
PLACE = (
    "SELECT plantstore_feed_epoch() AS epoch, pg_current_xact_id()::text::bigint AS xid, "
    "pg_current_snapshot()::text AS snapshot"
)
SEQUENCE = "SELECT setval(pg_get_serial_sequence('events', 'id'), :last)"


def statements(dialect):
    """The INSERTs of the fill, in order, on dialect ("sqlite" or "postgresql")."""
    time_of = TIME[dialect].format
    words = {
        "tag": TAG,
        "body": BODY,
        "type": EVENT_TYPE,
        "status": STATUS,
        "hex_id": HEX_ID[dialect],
        "receiver": RECEIVER,
        "receivers": len(RECEIVERS),
        "at": time_of(AT),
        # A delivered row's answer came 50 ms after its event; a pending one is retried later.
        "answered": time_of(f"{AT} + 50000"),
        "later": time_of(":now + 3600000000"),
    }
    return [
        SERIES[dialect] + insert.format(**words) + FROM[dialect]
        for insert in (PLANTS, EVENTS, DELIVERIES)
    ] + [CURSORS]


def values(n, now, place):
    """The bound values of the fill of n rows each, the newest written at now (an aware
    datetime), its events at place (a Place: their epoch and xid) with snapshot."""
    epoch, xid, snapshot = place
    now_us = int(now.timestamp() * 1e6)
    span_us = int(SPAN.total_seconds() * 1e6)
    return {
        "n": n,
        "now": now_us,
        "start": now_us - span_us // n * n,
        # Per row, and multiplied as a bigint: i * span would overflow one at 10,000,000 rows.
        "step": span_us // n,
        # As many events as are kept went before them, deleted by the retention.
        "gone": n,
        "last": 2 * n,
        "epoch": epoch,
        "xid": xid,
        "snapshot": snapshot,
        # The digits of the event's id go last (ids.public_id).
        "event_id": public_id(Place(epoch, xid, 0))[:-1],
        "receiver": RECEIVERS[0][:-1],
    }


def fill(url, n):
    """Fill the database at url (schema-current, empty) with n rows of each kind; seconds."""
    started = time.monotonic()
    engine = create_engine(url)
    dialect = engine.dialect.name
    with engine.begin() as conn:
        place = (0, 0, None)
        if dialect == "postgresql":
            place = tuple(conn.execute(text(PLACE)).one())
        bound = values(n, datetime.datetime.now(datetime.UTC), place)
        for statement in statements(dialect):
            conn.execute(text(statement), bound)
        if dialect == "postgresql":
            conn.execute(text(SEQUENCE), bound)
    if dialect == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            for table in TABLES:
                conn.exec_driver_sql(f"VACUUM ANALYZE {table}")
    engine.dispose()
    return time.monotonic() - started
