"""The plants table and every statement on it: the service's hot path."""

import enum

import sqlalchemy
from sqlalchemy import BigInteger, Column, Index, Integer, String, Table, bindparam, func

from ..database import INSERTS, as_dict, driver_sql, metadata
from ..database.sql import UTCDateTime
from ..events import Announcing
from .events import CREATED, DELETED, UPDATED

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
INSERT = Announcing(
    CREATED,
    {
        name: insert(plants)
        .values({column: bindparam(column.key) for column in COLUMNS})
        .on_conflict_do_nothing(index_elements=plants.primary_key.columns)
        .returning(plants.c.id)
        for name, insert in INSERTS.items()
    },
)
SELECT = sqlalchemy.select(*COLUMNS)
SELECT_ONE = driver_sql(SELECT.where(BY_ID))
# The condition of a page by (filtered by tag, starting after an id); its order is always by id.
TAGGED, AFTER = plants.c.tag == bindparam("tag"), plants.c.id > bindparam("after")
PAGE_WHERE = {
    (False, False): (),
    (False, True): (AFTER,),
    (True, False): (TAGGED,),
    (True, True): (TAGGED, AFTER),
}
SELECT_PAGES = {
    key: driver_sql(SELECT.where(*where).order_by(plants.c.id).limit(bindparam("limit")))
    for key, where in PAGE_WHERE.items()
}
# A plant's one DELETE, which returns what it deleted: whatever its version, or as it was read.
DELETE = sqlalchemy.delete(plants).returning(*COLUMNS)
DELETE_ANY = Announcing(DELETED, DELETE.where(BY_ID))
DELETE_AS_SEEN = Announcing(DELETED, DELETE.where(AS_SEEN))
UPDATE_AS_SEEN = Announcing(
    UPDATED,
    sqlalchemy.update(plants)
    .values({column: bindparam(column.key) for column in CHANGEABLE})
    .where(AS_SEEN)
    .returning(*COLUMNS),
)
# Every SELECT above returns the plant's fields: a row of any of them, by name.
_plant = as_dict(SELECT)


def create(db, plant, outbox):
    """Store plant unless its id exists; compare with the stored one if it does.

    A new plant is announced to the outbox (plant.created, with plant as its body) in the same
    transaction, when anybody would receive it: both are kept, or neither.
    """
    values = {key: plant.get(key) for key in FIELDS}
    while True:
        with db.transaction() as cursor:
            if INSERT.run(cursor, db.dialect, values, outbox, lambda _: plant) is not None:
                return CreateResult.CREATED, values
            # The conflicting row is committed: PostgreSQL waited for it, SQLite holds the lock.
            cursor.execute(SELECT_ONE[db.dialect], values)
            stored = cursor.fetchone()
        if stored is None:
            continue  # deleted between the insert and the read: try the insert again
        stored = _plant(stored)
        if stored == values:
            return CreateResult.REPLAYED, stored
        return CreateResult.CONFLICT, stored


def get(db, plant_id):
    """The stored plant with this id, or None."""
    with db.cursor() as cursor:
        cursor.execute(SELECT_ONE[db.dialect], {"id": plant_id})
        row = cursor.fetchone()
    return _plant(row) if row else None


def page(db, after, limit, tag=None):
    """Up to limit plants with ids above after (all when None), by id, only those whose tag is
    exactly tag (any when None); and whether more remain."""
    query = SELECT_PAGES[tag is not None, after is not None]
    with db.cursor() as cursor:
        cursor.execute(query[db.dialect], {"limit": limit + 1, "after": after, "tag": tag})
        rows = [_plant(row) for row in cursor.fetchall()]
    return rows[:limit], len(rows) > limit


def delete(db, plant_id, outbox):
    """Delete the plant with this id; False if there was none.

    The deletion is announced to the outbox (plant.deleted, with the StoredPlant as its body)
    in the same transaction, when anybody would receive it.
    """
    with db.transaction() as cursor:
        deleted = DELETE_ANY.run(cursor, db.dialect, {"id": plant_id}, outbox, stored_body)
    return deleted is not None


def update_as_seen(db, seen, plant, outbox):
    """Make the stored plant plant (the same id) if it still is seen; whether it was.

    The change is announced to the outbox (plant.updated, with plant as a StoredPlant) in the
    same transaction, when anybody would receive it.
    """
    return _as_seen(db, UPDATE_AS_SEEN, seen, plant, outbox)


def delete_as_seen(db, seen, outbox):
    """Delete the stored plant if it still is seen; whether it was.

    The deletion is announced as delete() announces it.
    """
    return _as_seen(db, DELETE_AS_SEEN, seen, seen, outbox)


def _as_seen(db, statement, seen, plant, outbox):
    values = {**plant, **{SEEN[key]: seen[key] for key in SEEN}}
    with db.transaction() as cursor:
        row = statement.run(cursor, db.dialect, values, outbox, lambda _: stored_body(plant))
    return row is not None


def stored_body(plant):
    """The StoredPlant an event carries: a plant's fields, each only when it is not None."""
    return {key: plant[key] for key in FIELDS if plant[key] is not None}
