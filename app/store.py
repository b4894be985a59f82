"""Every SQL statement the API runs on plants."""

import enum

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from .db import plants


class Outcome(enum.Enum):
    """What a create did."""

    CREATED = "created"
    REPLAYED = "replayed"
    CONFLICT = "conflict"


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
            stored = conn.execute(
                select(plants.c.id, plants.c.name, plants.c.tag).where(plants.c.id == plant["id"])
            ).first()
        if stored is None:
            continue  # deleted between the insert and the read: try the insert again
        if (stored.name, stored.tag) == (values["name"], values["tag"]):
            return Outcome.REPLAYED, stored._asdict()
        return Outcome.CONFLICT, stored._asdict()


def ping(db):
    """Raise unless the database answers and holds the schema."""
    with db.read() as conn:
        conn.execute(select(plants.c.id).limit(1)).all()
