"""The feed's retention: events older than PLANTSTORE_EVENT_RETENTION go, in the feed's order, a
batch at a time, once fanned out; the DELETED cursor says how far (a follower after an event
before it gets a 410)."""

from sqlalchemy import bindparam, delete, func, select

from ..database import Statement
from . import cursors, store

e = store.e
DELETE = Statement(delete(store.events).where(e.id == func.any(bindparam("ids"))))
NEWEST_ID = Statement(select(func.max(e.id).label("id")))
DELETE_UP_TO = Statement(
    delete(store.events).where(e.id <= bindparam("id"), e.id < bindparam("newest"))
)


def delete_old(db, before, batch):
    """Delete, in the feed's order, up to batch of the events already fanned out that were
    written before before, stopping at the first one that was not; how many this pass deleted
    (another pass that read the same ones may have deleted some first)."""
    with db.transaction() as cursor:
        fanned = cursors.where(db, cursor, cursors.FANOUT)
        since = cursors.where(db, cursor, cursors.DELETED)
        rows, _ = store.page(db, cursor, since, (), batch)
        old = []
        for event in rows:
            if (event.epoch, event.xid, event.id) > fanned:
                break
            if db.read_time(event.created_at) >= before:
                break
            old.append(event)
        if not old:
            return 0
        deleted = _delete(db, cursor, old)
        cursors.move(db, cursor, cursors.DELETED, old[-1])
        return deleted


def _delete(db, cursor, old):
    if not db.is_sqlite:
        cursor.execute(DELETE[db.dialect], {"ids": [event.id for event in old]})
        return cursor.rowcount
    # The newest row stays until another follows it, deleted for readers by the DELETED cursor
    # alone: SQLite gives a new row the largest rowid plus one, and an emptied table would give
    # its ids out again, which followers past them would never see.
    cursor.execute(NEWEST_ID[db.dialect])
    cursor.execute(DELETE_UP_TO[db.dialect], {"id": old[-1].id, "newest": NEWEST_ID.row(cursor).id})
    return cursor.rowcount
