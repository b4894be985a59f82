"""Every SQL statement the API runs on plants."""

import enum

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite

from .db import plants


class Outcome(enum.Enum):
    """What a create did."""

    CREATED = "created"
    REPLAYED = "replayed"
    CONFLICT = "conflict"


def _columns():
    return select(plants.c.id, plants.c.name, plants.c.tag)


def _insert(db):
    return (sqlite if db.is_sqlite else postgresql).insert(plants)


def create_plant(db, plant):
    """Store plant unless its id exists; compare with the stored one if it does."""
    values = {"id": plant["id"], "name": plant["name"], "tag": plant.get("tag")}
    statement = _insert(db).values(values).on_conflict_do_nothing(index_elements=["id"])
    while True:
        with db.write() as conn:
            if conn.execute(statement).rowcount == 1:
                return Outcome.CREATED, values
            # The conflicting row is committed: PostgreSQL waited for it, SQLite holds the lock.
            stored = conn.execute(_columns().where(plants.c.id == plant["id"])).first()
        if stored is None:
            continue  # deleted between the insert and the read: try the insert again
        if (stored.name, stored.tag) == (values["name"], values["tag"]):
            return Outcome.REPLAYED, stored._asdict()
        return Outcome.CONFLICT, stored._asdict()


def get_plant(db, plant_id):
    """The stored plant with this id, or None."""
    with db.read() as conn:
        row = conn.execute(_columns().where(plants.c.id == plant_id)).first()
    return row._asdict() if row else None


def list_plants(db, after, limit):
    """Up to limit plants with ids above after (all when None), by id; and whether more remain."""
    query = _columns().order_by(plants.c.id).limit(limit + 1)
    if after is not None:
        query = query.where(plants.c.id > after)
    with db.read() as conn:
        rows = [row._asdict() for row in conn.execute(query)]
    return rows[:limit], len(rows) > limit


def delete_plant(db, plant_id):
    """Delete the plant with this id; False if there was none."""
    with db.write() as conn:
        return conn.execute(delete(plants).where(plants.c.id == plant_id)).rowcount == 1


def ping(db):
    """Raise unless the database answers and holds the schema."""
    with db.read() as conn:
        conn.execute(select(plants.c.id).limit(1)).all()
