"""The webhook_windows table: the size of each worker's window per receiver, which the worker
writes as it delivers and /metrics reads, whichever host the worker runs on (the windows
themselves are the worker's, in worker/windows.py)."""

from sqlalchemy import (
    Column,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    bindparam,
    delete,
    func,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite

from ...database import Now, Statement, metadata
from ...database.column_types import UTCDateTime

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

w = webhook_windows.c


def _upsert(insert):
    new = insert(webhook_windows).values(
        {
            **{column: bindparam(column) for column in ("worker", "receiver", "size")},
            "expires_at": Now("life", later=True),
        }
    )
    return new.on_conflict_do_update(
        index_elements=[w.worker, w.receiver],
        set_={"size": new.excluded.size, "expires_at": new.excluded.expires_at},
    )


WRITE = Statement({"sqlite": _upsert(sqlite.insert), "postgresql": _upsert(postgresql.insert)})
DELETE_EXPIRED = Statement(delete(webhook_windows).where(w.expires_at < Now()))
DELETE_WORKER = Statement(delete(webhook_windows).where(w.worker == bindparam("worker")))
LIVE = Statement(
    select(w.receiver, func.sum(w.size).label("size"))
    .where(w.expires_at >= Now())
    .group_by(w.receiver),
    "WindowSize",
)


def write(cursor, worker, sizes, life):
    """Write worker's windows ({receiver: size}) for life seconds, in the cursor's transaction,
    and delete the rows of workers gone by now, by the database's clock."""
    DELETE_EXPIRED.execute(cursor)
    rows = [
        {"worker": worker, "receiver": receiver, "size": size, "life": life}
        for receiver, size in sizes.items()
    ]
    if rows:
        WRITE.executemany(cursor, rows)


def forget(cursor, worker):
    """Delete worker's windows (it stops), in the cursor's transaction."""
    DELETE_WORKER.execute(cursor, {"worker": worker})


def live(db):
    """{receiver: the sum of its windows over the workers still running now, by the database's
    clock}."""
    with db.cursor() as cursor:
        LIVE.execute(cursor)
        return {row.receiver: row.size for row in LIVE.rows(cursor)}
