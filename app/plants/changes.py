"""Changing a stored plant while it is as it was read: a merge of new values, and a deletion
under If-Match.

Each is a compare-and-set in the database (the statement's WHERE names the content that was
read), never a read then a blind write: of concurrent changes made from one version, on one
server or several sharing the database, exactly one finds the row as it saw it.
"""

import enum
import functools

from ..database import driver_sql
from . import store
from .events import DELETED, UPDATED


class Outcome(enum.Enum):
    """What a change did."""

    CHANGED = "changed"
    UNCHANGED = "unchanged"
    MISSING = "missing"
    STALE = "stale"


# The row still holds what was read; SQLite spells IS NOT DISTINCT FROM as IS.
AS_SEEN = "WHERE id = :id AND name = :seen_name AND tag IS NOT DISTINCT FROM :seen_tag"
UPDATE_SQL = f"UPDATE plants SET name = :name, tag = :tag {AS_SEEN} RETURNING id, name, tag"
DELETE_SQL = f"DELETE FROM plants {AS_SEEN} RETURNING id, name, tag"


@functools.cache
def _compiled(sql):
    return {
        "postgresql": driver_sql(sql)["postgresql"],
        "sqlite": driver_sql(sql.replace(" IS NOT DISTINCT FROM ", " IS "))["sqlite"],
    }


def update(db, plant_id, changes, precondition=None, outbox=None):
    """Merge changes (name, tag; a tag of None removes it) into the plant with this id.

    precondition, given the plant as it is (None: there is none), says whether to go on.
    Returns (Outcome, plant): STALE with what failed the precondition, MISSING, UNCHANGED or
    CHANGED with the plant as it now is. A change is announced to the outbox (plant.updated)
    in its own transaction; a change that changes nothing is not made, and announces nothing.
    """
    while True:
        seen = store.get(db, plant_id)
        if precondition is not None and not precondition(seen):
            return Outcome.STALE, seen
        if seen is None:
            return Outcome.MISSING, None
        plant = {**seen, **changes}
        if plant == seen:
            return Outcome.UNCHANGED, seen
        if _as_seen(db, UPDATE_SQL, UPDATED, seen, plant, outbox):
            return Outcome.CHANGED, plant
        # Changed or deleted since it was read: judge the change again on what is there now.


def delete(db, plant_id, precondition, outbox=None):
    """Delete the plant with this id if precondition (as for update, and never true of a
    missing plant) holds for it.

    Returns (Outcome, plant): STALE with what failed the precondition, or CHANGED with what
    was deleted, which is announced to the outbox (plant.deleted) in the same transaction.
    """
    while True:
        seen = store.get(db, plant_id)
        if not precondition(seen):
            return Outcome.STALE, seen
        if _as_seen(db, DELETE_SQL, DELETED, seen, seen, outbox):
            return Outcome.CHANGED, seen


def _as_seen(db, sql, event_type, seen, plant, outbox):
    # Run sql on the row if it still holds seen, announcing plant; whether it did.
    statement = _compiled(sql if outbox is None else f"{sql}, {outbox.wanted(event_type)}")
    values = {
        "id": seen["id"],
        "name": plant["name"],
        "tag": plant["tag"],
        "seen_name": seen["name"],
        "seen_tag": seen["tag"],
    }
    with db.transaction() as cursor:
        cursor.execute(statement[db.dialect], values)
        rows = cursor.fetchall()
        if rows and outbox is not None and rows[0][3]:
            outbox.publish(cursor, event_type, store.stored_body(plant))
    return bool(rows)
