"""The webhook_windows table: the size of each worker's window per receiver, which the worker
writes as it delivers and /metrics reads, whichever host the worker runs on (the windows
themselves are the worker's, in worker/windows.py)."""

from sqlalchemy import Column, Integer, PrimaryKeyConstraint, String, Table, Text

from ...database import driver_sql, metadata
from ...database.sql import UTCDateTime

# A row per worker and receiver, rewritten while the worker runs; one past its expiry belongs
# to a worker that is gone (killed, or its host lost).
webhook_windows = Table(
    "webhook_windows",
    metadata,
    # The worker's own random id, made at its start.
    Column("worker", String(32), nullable=False),
    # An operator's URL, or an endpoint's id, as in the deliveries table.
    Column("receiver", Text, nullable=False),
    # Attempts in flight the worker allows the receiver now.
    Column("size", Integer, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("worker", "receiver"),
)

WRITE = driver_sql(
    "INSERT INTO webhook_windows (worker, receiver, size, expires_at) "
    "VALUES (:worker, :receiver, :size, :expires_at) ON CONFLICT (worker, receiver) "
    "DO UPDATE SET size = excluded.size, expires_at = excluded.expires_at"
)
DELETE_EXPIRED = driver_sql("DELETE FROM webhook_windows WHERE expires_at < :now")
DELETE_WORKER = driver_sql("DELETE FROM webhook_windows WHERE worker = :worker")
LIVE = driver_sql(
    "SELECT receiver, SUM(size) FROM webhook_windows WHERE expires_at >= :now GROUP BY receiver"
)


def write(db, cursor, worker, sizes, now, expires_at):
    """Write worker's windows ({receiver: size}) until expires_at, in the cursor's transaction,
    and delete the rows of workers gone by now."""
    cursor.execute(DELETE_EXPIRED[db.dialect], {"now": db.bind_time(now)})
    until = db.bind_time(expires_at)
    rows = [
        {"worker": worker, "receiver": receiver, "size": size, "expires_at": until}
        for receiver, size in sizes.items()
    ]
    if rows:
        cursor.executemany(WRITE[db.dialect], rows)


def forget(db, cursor, worker):
    """Delete worker's windows (it stops), in the cursor's transaction."""
    cursor.execute(DELETE_WORKER[db.dialect], {"worker": worker})


def live(db, now):
    """{receiver: the sum of its windows over the workers still running at now}."""
    with db.cursor() as cursor:
        cursor.execute(LIVE[db.dialect], {"now": db.bind_time(now)})
        return dict(cursor.fetchall())
