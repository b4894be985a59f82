"""The plants table and every statement on it: the service's hot path. A change writes its
event to the feed in its own transaction (app/events/store.py), so that both are kept or neither."""

import enum

import sqlalchemy
from sqlalchemy import BigInteger, Column, Index, Integer, String, Table, bindparam, func

from ..database import INSERTS, Statement, metadata
from ..database.column_types import UTCDateTime
from ..events import store as feed
from .event_types import CREATED, DELETED, UPDATED

plants = Table(
    "plants",
    metadata,
    # On SQLite, INTEGER makes the id the rowid (an int64 as well): the table is its index.
    Column(
        "id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=False
    ),
    Column("name", String(255), nullable=False),
    Column("tag", String(255)),
    Column("created_at", UTCDateTime, nullable=False, server_default=func.now()),
    # A page filtered by tag reads only its own rows, already in id order, however rare the tag.
    Index("plants_tag_id", "tag", "id"),
)

# Columns the service keeps to itself: in no answer, version or event of a plant.
INTERNAL = frozenset({"created_at"})
# A plant's fields, in the table's order: the StoredPlant (tests/plants/test_columns.py).
COLUMNS = tuple(column for column in plants.c if column.key not in INTERNAL)
# Plain str: a column's key is a subclass of it, which a JSON encoder may refuse as a key.
FIELDS = tuple(str(column.key) for column in COLUMNS)
# What a change may set: every field but the id.
CHANGEABLE = tuple(column for column in COLUMNS if not column.primary_key)
# The parameter that holds each changeable field as it was read.
SEEN = {column.key: f"seen_{column.key}" for column in CHANGEABLE}


class CreateResult(enum.Enum):
    """What a create did."""

    CREATED = "created"
    REPLAYED = "replayed"
    CONFLICT = "conflict"


BY_ID = plants.c.id == bindparam("id")
# The row still holds what was read; IS NOT DISTINCT FROM (IS on SQLite) sees None as None.
AS_SEEN = sqlalchemy.and_(
    BY_ID, *(column.is_not_distinct_from(bindparam(SEEN[column.key])) for column in CHANGEABLE)
)

# A row returned says the plant went in (psycopg reports no rowcount for ON CONFLICT).
INSERT = Statement(
    {
        name: insert(plants)
        .values({column: bindparam(column.key) for column in COLUMNS})
        .on_conflict_do_nothing(index_elements=plants.primary_key.columns)
        .returning(plants.c.id)
        for name, insert in INSERTS.items()
    }
)
SELECT = sqlalchemy.select(*COLUMNS)
# Every statement that returns a plant returns its fields: each row is read as a dict of them.
SELECT_ONE = Statement(SELECT.where(BY_ID), record=dict)
# The condition of a page by (filtered by tag, starting after an id); its order is always by id.
TAGGED, AFTER = plants.c.tag == bindparam("tag"), plants.c.id > bindparam("after")
PAGE_WHERE = {
    (False, False): (),
    (False, True): (AFTER,),
    (True, False): (TAGGED,),
    (True, True): (TAGGED, AFTER),
}
SELECT_PAGES = {
    key: Statement(
        SELECT.where(*where).order_by(plants.c.id).limit(bindparam("limit")), record=dict
    )
    for key, where in PAGE_WHERE.items()
}
# A plant's one DELETE, which returns what it deleted: whatever its version, or as it was read.
DELETE = sqlalchemy.delete(plants).returning(*COLUMNS)
DELETE_ANY = Statement(DELETE.where(BY_ID), record=dict)
DELETE_AS_SEEN = Statement(DELETE.where(AS_SEEN), record=dict)
UPDATE_AS_SEEN = Statement(
    sqlalchemy.update(plants)
    .values({column: bindparam(column.key) for column in CHANGEABLE})
    .where(AS_SEEN)
    .returning(*COLUMNS),
    record=dict,
)


def create(db, plant):
    """Store plant unless its id exists; compare with the stored one if it does.

    A new plant writes plant.created, with plant as its body, to the feed in the same
    transaction.
    """
    values = {key: plant.get(key) for key in FIELDS}
    while True:
        with db.transaction() as cursor:
            INSERT.execute(cursor, values)
            if INSERT.value(cursor) is not None:
                feed.publish(cursor, CREATED, plant)
                return CreateResult.CREATED, values
            # The conflicting row is committed: PostgreSQL waited for it, SQLite holds the lock.
            SELECT_ONE.execute(cursor, values)
            stored = SELECT_ONE.row(cursor)
        if stored is None:
            continue  # deleted between the insert and the read: try the insert again
        if stored == values:
            return CreateResult.REPLAYED, stored
        return CreateResult.CONFLICT, stored


def get(db, plant_id):
    """The stored plant with this id, or None."""
    with db.cursor() as cursor:
        SELECT_ONE.execute(cursor, {"id": plant_id})
        return SELECT_ONE.row(cursor)


def page(db, after, limit, tag=None):
    """Up to limit plants with ids above after (all when None), by id, only those whose tag is
    exactly tag (any when None); and whether more remain."""
    query = SELECT_PAGES[tag is not None, after is not None]
    with db.cursor() as cursor:
        query.execute(cursor, {"limit": limit + 1, "after": after, "tag": tag})
        rows = query.rows(cursor)
    return rows[:limit], len(rows) > limit


def delete(db, plant_id):
    """Delete the plant with this id; False if there was none. The deletion writes
    plant.deleted, with the StoredPlant as its body, to the feed in the same transaction."""
    return _changed(db, DELETE_ANY, {"id": plant_id}, DELETED, stored_body) is not None


def update_as_seen(db, seen, plant):
    """Make the stored plant plant (the same id) if it still is seen; whether it was. The
    change writes plant.updated, with plant as a StoredPlant, to the feed in the same
    transaction."""
    values = {**plant, **{SEEN[key]: seen[key] for key in SEEN}}
    return _changed(db, UPDATE_AS_SEEN, values, UPDATED, lambda _: stored_body(plant)) is not None


def delete_as_seen(db, seen):
    """Delete the stored plant if it still is seen; whether it was. The deletion writes its
    event as delete() does."""
    values = {**seen, **{SEEN[key]: seen[key] for key in SEEN}}
    return _changed(db, DELETE_AS_SEEN, values, DELETED, stored_body) is not None


def _changed(db, statement, values, event_type, body):
    # The plant the statement changed, its event written with body(plant) in the same
    # transaction; None when the statement found no row to change.
    with db.transaction() as cursor:
        statement.execute(cursor, values)
        row = statement.row(cursor)
        if row is not None:
            feed.publish(cursor, event_type, body(row))
    return row


def stored_body(plant):
    """The StoredPlant an event carries: a plant's fields, each only when it is not None."""
    return {key: plant[key] for key in FIELDS if plant[key] is not None}
