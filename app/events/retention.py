"""The feed's retention, a job of its own: events older than PLANTSTORE_EVENT_RETENTION go, in
the feed's order, a batch at a time; the DELETED cursor says how far (a follower after an event
before it gets a 410). The webhooks' worker runs it on its schedule, and `events prune` when an
operator does (cli.py), both through Retention.prune.

No event goes that the fan-out has still to read: once the fan-out has read an event, none after
its place; before it has ever read one, none at all while it has a receiver (a feature says what
it has through fanout_receivers: the webhooks, their PLANTSTORE_WEBHOOK_URLS or an endpoint),
for its first round starts at the feed's start. With no receiver and no fan-out ever, no event
waits for it."""

from sqlalchemy import bindparam, delete, func, select

from .. import database
from ..database import Statement
from . import cursors, settings, store
from .ids import START

e = store.e
DELETE = Statement(delete(store.events).where(e.id == func.any(bindparam("ids"))))
NEWEST_ID = Statement(select(func.max(e.id).label("id")))
DELETE_UP_TO = Statement(
    delete(store.events).where(e.id <= bindparam("id"), e.id < bindparam("newest"))
)
# Where the app keeps whether the fan-out has a receiver: a function of a cursor.
RECEIVERS = "plantstore.fanout_receivers"


def fanout_receivers(app, has_receiver):
    """Keep every event from the fan-out's start while has_receiver(cursor) says it has
    somewhere to send one, before it has read any (see the module's docstring)."""
    app.extensions[RECEIVERS] = has_receiver


def _no_receiver(cursor):
    return False


class Retention:
    """One app's retention: its database, PLANTSTORE_EVENT_RETENTION, and the fan-out's
    receivers as fanout_receivers gave them (none when no feature did)."""

    def __init__(self, app):
        self.db = database.of(app)
        self.seconds = settings.of(app).retention
        self.has_receiver = app.extensions.get(RECEIVERS, _no_receiver)

    def prune(self, batch):
        """One pass, in one transaction: delete, in the feed's order, up to batch events written
        more than the retention ago by the database's clock, stopping at the first one that was
        not, or that the fan-out has still to read; how many went (see delete_old)."""
        with self.db.transaction() as cursor:
            before = database.later(self.db, cursor, -self.seconds)
            return delete_old(self.db, cursor, before, self.bound(cursor), batch)

    def bound(self, cursor):
        """The last place the retention may delete up to: the fan-out's once it has read an
        event, the feed's start before that while it has a receiver; None when no event waits
        for it."""
        fanned = cursors.moved_to(cursor, cursors.FANOUT)
        if fanned is None and self.has_receiver(cursor):
            return START
        return fanned

    def waiting(self):
        """The events that wait for the fan-out while the oldest of them is past the retention,
        which they hold back: how many, and the oldest's age in seconds; None when none does."""
        with self.db.cursor() as cursor:
            bounded = self.bound(cursor) is not None
        count, oldest = cursors.waiting(self.db) if bounded else (0, None)
        age = 0 if oldest is None else (database.now(self.db) - oldest).total_seconds()
        return (count, age) if age >= self.seconds else None


def delete_old(db, cursor, before, bound, batch):
    """Delete, in the feed's order and the cursor's transaction, up to batch of the events
    written before before and not after bound (a Place; None: any), stopping at the first one
    that was not; how many this pass took out of the feed (another pass that read the same
    ones may have deleted some first)."""
    since = cursors.where(cursor, cursors.DELETED)
    rows, _ = store.page(cursor, since, (), batch)
    old = []
    for event in rows:
        if bound is not None and (event.epoch, event.xid, event.id) > bound:
            break
        if event.created_at >= before:
            break
        old.append(event)
    if not old:
        return 0
    deleted = _delete(db, cursor, old)
    cursors.move(cursor, cursors.DELETED, old[-1])
    return deleted


def _delete(db, cursor, old):
    if not db.is_sqlite:
        DELETE.execute(cursor, {"ids": [event.id for event in old]})
        return cursor.rowcount
    # The newest row stays until another follows it, deleted for readers by the DELETED cursor
    # alone: SQLite gives a new row the largest rowid plus one, and an emptied table would give
    # its ids out again, which followers past them would never see. One pass at a time holds
    # the write lock: each event of old leaves the feed by this one, counted.
    NEWEST_ID.execute(cursor)
    DELETE_UP_TO.execute(cursor, {"id": old[-1].id, "newest": NEWEST_ID.value(cursor)})
    return len(old)
