"""The plants table and its SQL: the service's hot path."""

import enum

from sqlalchemy import BigInteger, Column, Index, Integer, String, Table, func

from ..database import driver_sql, metadata
from ..database.sql import UTCDateTime
from ..events import Announcing
from .events import CREATED, DELETED

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


class CreateResult(enum.Enum):
    """What a create did."""

    CREATED = "created"
    REPLAYED = "replayed"
    CONFLICT = "conflict"


# A row returned says the plant went in (psycopg reports no rowcount for ON CONFLICT); it holds
# only whether anybody would receive the event, which Announcing adds.
INSERT = Announcing(
    CREATED,
    "INSERT INTO plants (id, name, tag) VALUES (:id, :name, :tag) "
    "ON CONFLICT (id) DO NOTHING RETURNING",
)
SELECT_ONE = driver_sql("SELECT id, name, tag FROM plants WHERE id = :id")
# The condition of a page by (filtered by tag, starting after an id); its order is always by id.
PAGE_WHERE = {
    (False, False): "",
    (False, True): " WHERE id > :after",
    (True, False): " WHERE tag = :tag",
    (True, True): " WHERE tag = :tag AND id > :after",
}
SELECT_PAGES = {
    key: driver_sql(f"SELECT id, name, tag FROM plants{where} ORDER BY id LIMIT :limit")
    for key, where in PAGE_WHERE.items()
}
DELETE = Announcing(DELETED, "DELETE FROM plants WHERE id = :id RETURNING id, name, tag")


def create(db, plant, outbox):
    """Store plant unless its id exists; compare with the stored one if it does.

    A new plant is announced to the outbox (plant.created, with plant as its body) in the same
    transaction, when anybody would receive it: both are kept, or neither.
    """
    values = {"id": plant["id"], "name": plant["name"], "tag": plant.get("tag")}
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
        if (stored["name"], stored["tag"]) == (values["name"], values["tag"]):
            return CreateResult.REPLAYED, stored
        return CreateResult.CONFLICT, stored


def _plant(row):
    plant_id, name, tag = row
    return {"id": plant_id, "name": name, "tag": tag}


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
        deleted = DELETE.run(cursor, db.dialect, {"id": plant_id}, outbox, _deleted_body)
    return deleted is not None


def _deleted_body(row):
    return stored_body(_plant(row))


def stored_body(plant):
    """The StoredPlant an event carries: id, name, and tag only when the plant has one."""
    body = {"id": plant["id"], "name": plant["name"]}
    if plant["tag"] is not None:
        body["tag"] = plant["tag"]
    return body
