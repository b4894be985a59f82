"""Changing a stored plant while it is as it was read: a merge of new values, and a deletion
under If-Match.

Each is a compare-and-set in the database (store's statements name, in their WHERE, the content
that was read), never a read then a blind write: of concurrent changes made from one version, on
one server or several sharing the database, exactly one finds the row as it saw it.
"""

import enum

from . import store


class ChangeResult(enum.Enum):
    """What a change did."""

    CHANGED = "changed"
    UNCHANGED = "unchanged"
    MISSING = "missing"
    STALE = "stale"


def update(db, plant_id, changes, precondition):
    """Merge changes (name, tag; a tag of None removes it) into the plant with this id.

    precondition, given the plant as it is (None: there is none), says whether to go on.
    Returns (ChangeResult, plant): STALE with what failed the precondition, MISSING, UNCHANGED or
    CHANGED with the plant as it now is. A change writes plant.updated to the feed in its own
    transaction; a change that changes nothing is not made, and writes nothing.
    """
    while True:
        seen = store.get(db, plant_id)
        if precondition is not None and not precondition(seen):
            return ChangeResult.STALE, seen
        if seen is None:
            return ChangeResult.MISSING, None
        plant = {**seen, **changes}
        if plant == seen:
            return ChangeResult.UNCHANGED, seen
        if store.update_as_seen(db, seen, plant):
            return ChangeResult.CHANGED, plant
        # Changed or deleted since it was read: judge the change again on what is there now.


def delete(db, plant_id, precondition):
    """Delete the plant with this id if precondition (as for update, and never true of a
    missing plant) holds for it.

    Returns (ChangeResult, plant): STALE with what failed the precondition, or CHANGED with what
    was deleted, which writes plant.deleted to the feed in the same transaction.
    """
    while True:
        seen = store.get(db, plant_id)
        if not precondition(seen):
            return ChangeResult.STALE, seen
        if store.delete_as_seen(db, seen):
            return ChangeResult.CHANGED, seen
