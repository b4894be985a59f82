"""Where the feed's own readers stand, each a row of event_cursors: the fan-out's place (the
last event fanned out) and the retention's (the last event deleted: every event up to it is
gone). A cursor only ever moves forward; no row stands before every event. The retention
passes the fan-out's place only when no event waited for it (retention.py): the fan-out reads on
from the further of the two."""

from sqlalchemy import (
    BigInteger,
    Column,
    String,
    Table,
    bindparam,
    func,
    literal_column,
    or_,
    select,
    tuple_,
)

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
# What an after given to the feed is: see standing.
GIVEN, LOST, NEVER = "given", "lost", "never"

c = event_cursors.c
CURSOR = Statement(select(c.epoch, c.xid, c.id).where(c.name == bindparam("name")), record=Place)
# Where the fan-out reads on from: past what the retention deleted too (SQLite keeps a row).
UNREAD_FROM = Statement(
    select(c.epoch, c.xid, c.id)
    .where(or_(c.name == inline(FANOUT), c.name == inline(DELETED)))
    .order_by(c.epoch.desc(), c.xid.desc(), c.id.desc())
    .limit(inline(1)),
    record=Place,
)
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
    },
    "Backlog",
)


u = store.events.alias("unread").c
# Of the events after a place, committed or not, the earliest epoch's oldest snapshot.
UNREAD = Statement(
    select(
        u.epoch,
        func.min(func.split_part(u.snapshot, inline(":"), inline(1)).cast(BigInteger)).label(
            "xmin"
        ),
        func.bool_or(u.snapshot.is_(None)).label("unknown"),
    )
    .where(
        tuple_(u.epoch, u.xid, u.id) > tuple_(bindparam("epoch"), bindparam("xid"), bindparam("id"))
    )
    .group_by(u.epoch)
    .order_by(u.epoch)
    .limit(inline(1)),
    "Unread",
)
# This cluster's epoch and its oldest running transaction, which bound every snapshot to come.
HORIZON = Statement(
    select(store.HERE.label("epoch"), literal_column(store.XMIN).label("xmin")), "Horizon"
)


def where(cursor, name):
    """The Place of the cursor name (FANOUT or DELETED)."""
    return moved_to(cursor, name) or START


def moved_to(cursor, name):
    """The Place of the cursor name, or None while it has never moved."""
    CURSOR.execute(cursor, {"name": name})
    return CURSOR.row(cursor)


def move(cursor, name, place):
    """Move the cursor name forward to place (a Place, or an Event), in the cursor's
    transaction; a cursor already past it stays."""
    values = {"name": name, "epoch": place.epoch, "xid": place.xid, "id": place.id}
    MOVE.execute(cursor, values)


def dropped_after(cursor, after):
    """Whether the retention deleted an event after the place after."""
    return after < where(cursor, DELETED)


def standing(db, cursor, after):
    """Whether the feed can have given the place after: GIVEN when it names an event kept, or
    one the retention deleted; LOST when it is of an epoch before this cluster's own, which a
    copy or a promoted replica may never have seen; NEVER when the feed cannot have given it
    (this cluster's future, or before the feed's start)."""
    deleted = where(cursor, DELETED)
    if (deleted != START and after <= deleted) or store.kept(cursor, after):
        return GIVEN
    return LOST if after.epoch < store.here(db, cursor) else NEVER


def claim_fanout(db, cursor):
    """Where the fan-out reads on from (unread_from), the fan-out held until the cursor's
    transaction ends; None when another worker's round holds it (PostgreSQL; SQLite's write
    lock holds the database)."""
    if not db.is_sqlite:
        FANNING_OUT.execute(cursor)
        if not FANNING_OUT.value(cursor):
            return None
    return unread_from(cursor)


def unread_from(cursor):
    """The place the fan-out reads on from: its own, or the retention's when that is further."""
    UNREAD_FROM.execute(cursor)
    return UNREAD_FROM.row(cursor) or START


def waiting(db):
    """How many events wait to be fanned out, and the creation time of the oldest (or None)."""
    with db.cursor() as cursor:
        WAITING.execute(cursor, unread_from(cursor)._asdict())
        row = WAITING.row(cursor)
    return row.count, row.oldest


def waiting_since(cursor):
    """The creation time of the oldest event waiting to be fanned out (SQLite), or None."""
    WAITING.execute(cursor, unread_from(cursor)._asdict())
    return WAITING.row(cursor).oldest


def seen(cursor):
    """PostgreSQL: an (epoch, xid) whose transactions before it, in its epoch and every earlier
    one, had all ended when each committed event that the fan-out has still to read was
    written, and when each event still to come will be; None while one of them was written
    before events kept their snapshot. Events not yet committed show no snapshot: see
    timelines.PRUNE."""
    UNREAD.execute(cursor, unread_from(cursor)._asdict())
    unread = UNREAD.row(cursor)
    if unread is not None and unread.unknown:
        return None
    HORIZON.execute(cursor)
    horizon = HORIZON.row(cursor)
    bound = (horizon.epoch, horizon.xmin)
    return bound if unread is None else min(bound, (unread.epoch, unread.xmin))
