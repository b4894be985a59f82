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
    or_,
    select,
)

from ...database import INSERTS, Now, Statement, metadata
from ...database.column_types import UTCDateTime

# A row per worker and receiver, written when its size changes; it counts while its worker is
# alive (webhook_window_workers), or, a row of a worker that keeps none, until its expiry.
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
# A row per running worker, rewritten while it runs: one row a write, however many receivers.
webhook_window_workers = Table(
    "webhook_window_workers",
    metadata,
    Column("worker", String(32), primary_key=True),
    Column("expires_at", UTCDateTime, nullable=False),
)
w, k = webhook_windows.c, webhook_window_workers.c
LIFE = Now("life", later=True)


def _upsert(insert, table, keys, values):
    new = insert(table).values({**{key: bindparam(key) for key in values}, "expires_at": LIFE})
    updated = {key: new.excluded[key] for key in (*values, "expires_at") if key not in keys}
    return new.on_conflict_do_update(index_elements=list(keys), set_=updated)


WRITE = Statement(
    {
        dialect: _upsert(
            insert, webhook_windows, ("worker", "receiver"), ("worker", "receiver", "size")
        )
        for dialect, insert in INSERTS.items()
    }
)
ALIVE = Statement(
    {
        dialect: _upsert(insert, webhook_window_workers, ("worker",), ("worker",))
        for dialect, insert in INSERTS.items()
    }
)
_live_worker = select(k.worker).where(k.worker == w.worker, k.expires_at >= Now()).exists()
# Rows whose worker is gone: its own row expired, or it keeps none and theirs did.
DELETE_EXPIRED = Statement(delete(webhook_windows).where(w.expires_at < Now(), ~_live_worker))
DELETE_GONE = Statement(delete(webhook_window_workers).where(k.expires_at < Now()))
DELETE_RECEIVER = Statement(
    delete(webhook_windows).where(
        w.worker == bindparam("worker"), w.receiver == bindparam("receiver")
    )
)
DELETE_WORKER = Statement(delete(webhook_windows).where(w.worker == bindparam("worker")))
FORGET_WORKER = Statement(delete(webhook_window_workers).where(k.worker == bindparam("worker")))
LIVE = Statement(
    select(w.receiver, func.sum(w.size).label("size"))
    .where(or_(_live_worker, w.expires_at >= Now()))
    .group_by(w.receiver),
    "WindowSize",
)


def write(cursor, worker, changed, life):
    """Write worker's windows that changed ({receiver: size, or None for one gone}) and keep
    all of them alive for life seconds, in the cursor's transaction: one row, and one for each
    window that changed."""
    ALIVE.execute(cursor, {"worker": worker, "life": life})
    rows = [
        {"worker": worker, "receiver": receiver, "size": size, "life": life}
        for receiver, size in changed.items()
        if size is not None
    ]
    if rows:
        WRITE.executemany(cursor, rows)
    gone = [{"worker": worker, "receiver": key} for key, size in changed.items() if size is None]
    if gone:
        DELETE_RECEIVER.executemany(cursor, gone)


def forget_gone(db):
    """Delete the rows of workers gone by now, by the database's clock, which no scrape counts
    any more: a scan of the windows, done apart from the rounds."""
    with db.transaction() as cursor:
        DELETE_EXPIRED.execute(cursor)
        DELETE_GONE.execute(cursor)


def forget(cursor, worker):
    """Delete worker's windows (it stops), in the cursor's transaction."""
    DELETE_WORKER.execute(cursor, {"worker": worker})
    FORGET_WORKER.execute(cursor, {"worker": worker})


def live(db):
    """{receiver: the sum of its windows over the workers still running now, by the database's
    clock}."""
    with db.cursor() as cursor:
        LIVE.execute(cursor)
        return {row.receiver: row.size for row in LIVE.rows(cursor)}
