"""Where the feed's own readers stand, each a row of event_cursors: the fan-out's place (the
last event fanned out) and the retention's (the last event deleted: every event up to it is
gone). A cursor only ever moves forward; no row stands before every event."""

from sqlalchemy import BigInteger, Column, String, Table, bindparam, func, select, tuple_

from ..database import INSERTS, Statement, inline, metadata
from . import store
from .ids import START, Place

event_cursors = Table(
    "event_cursors",
    metadata,
    Column("name", String(20), primary_key=True),
    Column("epoch", BigInteger, nullable=False, server_default="0"),
    Column("xid", BigInteger, nullable=False),
    Column("id", BigInteger, nullable=False),
)
FANOUT, DELETED = "fanout", "deleted"

c = event_cursors.c
CURSOR = Statement(select(c.epoch, c.xid, c.id).where(c.name == bindparam("name")), record=Place)
# One fan-out at a time on PostgreSQL, until its round commits: another worker's round skips it.
FANNING_OUT = Statement(
    select(func.pg_try_advisory_xact_lock(inline(7166034265536446464)).label("held"))
)


def _moved(insert):
    new = insert(event_cursors).values(
        name=bindparam("name"), epoch=bindparam("epoch"), xid=bindparam("xid"), id=bindparam("id")
    )
    # Forward only: of two retention passes that read the same cursor, the later to commit must
    # not put back the smaller place the earlier passed.
    return new.on_conflict_do_update(
        index_elements=[c.name],
        set_={"epoch": new.excluded.epoch, "xid": new.excluded.xid, "id": new.excluded.id},
        where=tuple_(c.epoch, c.xid, c.id)
        < tuple_(new.excluded.epoch, new.excluded.xid, new.excluded.id),
    )


MOVE = Statement({dialect: _moved(insert) for dialect, insert in INSERTS.items()})
WAITING = Statement(
    {
        dialect: select(func.count().label("count"), func.min(store.e.created_at).label("oldest"))
        .select_from(store.events)
        .where(*where)
        for dialect, (where, _) in store.ORDER.items()
    }
)


def where(db, cursor, name):
    """The Place of the cursor name (FANOUT or DELETED)."""
    cursor.execute(CURSOR[db.dialect], {"name": name})
    return CURSOR.row(cursor) or START


def move(db, cursor, name, place):
    """Move the cursor name forward to place (a Place, or an Event), in the cursor's
    transaction; a cursor already past it stays."""
    values = {"name": name, "epoch": place.epoch, "xid": place.xid, "id": place.id}
    cursor.execute(MOVE[db.dialect], values)


def dropped_after(db, cursor, after):
    """Whether the retention deleted an event after the place after."""
    return after < where(db, cursor, DELETED)


def given_before(db, cursor, after):
    """Whether the feed can have given the place after: no later than its newest event, or
    than the last one the retention deleted."""
    return after <= max(store.newest(db, cursor), where(db, cursor, DELETED))


def claim_fanout(db, cursor):
    """The fan-out's place, the fan-out held until the cursor's transaction ends; None when
    another worker's round holds it (PostgreSQL; SQLite's write lock holds the database)."""
    if not db.is_sqlite:
        cursor.execute(FANNING_OUT[db.dialect])
        if not FANNING_OUT.row(cursor).held:
            return None
    return where(db, cursor, FANOUT)


def waiting(db):
    """How many events wait to be fanned out, and the creation time of the oldest (or None)."""
    with db.cursor() as cursor:
        after = where(db, cursor, FANOUT)
        cursor.execute(WAITING[db.dialect], after._asdict())
        row = WAITING.row(cursor)
    return row.count, db.read_time(row.oldest) if row.oldest is not None else None
