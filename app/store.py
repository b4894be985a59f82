"""Every SQL statement the service runs: plants and tokens."""

import datetime
import enum

from sqlalchemy import bindparam, delete, func, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from .db import deliveries, plants, tokens

PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"


class Outcome(enum.Enum):
    """What a create did."""

    CREATED = "created"
    REPLAYED = "replayed"
    CONFLICT = "conflict"


# Statements are built once: on the request path only their parameters change.
_PLANT = select(plants.c.id, plants.c.name, plants.c.tag)
GET_PLANT = _PLANT.where(plants.c.id == bindparam("id"))
LIST_PLANTS = _PLANT.order_by(plants.c.id).limit(bindparam("limit"))
LIST_PLANTS_AFTER = LIST_PLANTS.where(plants.c.id > bindparam("after"))


def _insert_plant(dialect):
    # RETURNING tells whether the row went in: psycopg reports no rowcount for ON CONFLICT.
    return (
        dialect.insert(plants).on_conflict_do_nothing(index_elements=["id"]).returning(plants.c.id)
    )


INSERT_PLANT = {"sqlite": _insert_plant(sqlite), "postgresql": _insert_plant(postgresql)}


def create_plant(db, plant, outbox=()):
    """Store plant unless its id exists; compare with the stored one if it does.

    The outbox rows (webhook deliveries) are written in the same transaction, and only when the
    plant is new: both are kept, or neither.
    """
    values = {"id": plant["id"], "name": plant["name"], "tag": plant.get("tag")}
    statement = INSERT_PLANT[db.dialect]
    while True:
        with db.write() as conn:
            if conn.execute(statement, values).first() is not None:
                if outbox:
                    conn.execute(insert(deliveries), list(outbox))
                return Outcome.CREATED, values
            # The conflicting row is committed: PostgreSQL waited for it, SQLite holds the lock.
            stored = conn.execute(GET_PLANT, values).first()
        if stored is None:
            continue  # deleted between the insert and the read: try the insert again
        stored = _plant(stored)
        if (stored["name"], stored["tag"]) == (values["name"], values["tag"]):
            return Outcome.REPLAYED, stored
        return Outcome.CONFLICT, stored


def _plant(row):
    # Unpacking a row is several times cheaper than Row._asdict(), which adds up on a page.
    plant_id, name, tag = row
    return {"id": plant_id, "name": name, "tag": tag}


def get_plant(db, plant_id):
    """The stored plant with this id, or None."""
    with db.read() as conn:
        row = conn.execute(GET_PLANT, {"id": plant_id}).first()
    return _plant(row) if row else None


def list_plants(db, after, limit):
    """Up to limit plants with ids above after (all when None), by id; and whether more remain."""
    query = LIST_PLANTS if after is None else LIST_PLANTS_AFTER
    with db.read() as conn:
        rows = [_plant(row) for row in conn.execute(query, {"limit": limit + 1, "after": after})]
    return rows[:limit], len(rows) > limit


def delete_plant(db, plant_id):
    """Delete the plant with this id; False if there was none."""
    with db.write() as conn:
        return conn.execute(delete(plants).where(plants.c.id == plant_id)).rowcount == 1


class DuplicateName(Exception):
    """A token with this name exists already."""


def utcnow():
    """The current time, in UTC."""
    return datetime.datetime.now(datetime.UTC)


def create_token(db, name, token_hash, scope, expires_at):
    """Record a token by its hash; raise DuplicateName if the name is taken."""
    row = {
        "name": name,
        "token_hash": token_hash,
        "scope": scope,
        "created_at": utcnow(),
        "expires_at": expires_at,
    }
    try:
        with db.write() as conn:
            conn.execute(insert(tokens).values(row))
    except IntegrityError:
        raise DuplicateName(name) from None


def _live():
    return (
        tokens.c.revoked_at.is_(None),
        or_(tokens.c.expires_at.is_(None), tokens.c.expires_at > utcnow()),
    )


def find_token(db, token_hash):
    """Name and scope of the live (not revoked, not expired) token with this hash, or None."""
    query = select(tokens.c.name, tokens.c.scope).where(tokens.c.token_hash == token_hash, *_live())
    with db.read() as conn:
        return conn.execute(query).first()


def list_tokens(db):
    """Every token's name, scope, creation, expiry and revocation; never its hash."""
    query = select(
        tokens.c.name, tokens.c.scope, tokens.c.created_at, tokens.c.expires_at, tokens.c.revoked_at
    ).order_by(tokens.c.created_at, tokens.c.name)
    with db.read() as conn:
        return conn.execute(query).all()


def revoke_token(db, name):
    """Revoke the token with this name; False if there is none. Revoking twice is harmless."""
    with db.write() as conn:
        conn.execute(
            update(tokens)
            .where(tokens.c.name == name, tokens.c.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )
        return conn.execute(select(tokens.c.name).where(tokens.c.name == name)).first() is not None


def count_live_tokens(db):
    """How many tokens in the table could authenticate a request now."""
    query = select(func.count()).select_from(tokens).where(*_live())
    with db.read() as conn:
        return conn.execute(query).scalar_one()


def claim_delivery(db, lease):
    """Claim the most overdue pending delivery for lease (a timedelta), counting the attempt.

    On PostgreSQL, SKIP LOCKED lets workers on several hosts claim side by side; on SQLite the
    write lock makes the claim atomic.
    """
    now = utcnow()
    due = (
        select(deliveries.c.id)
        .where(
            deliveries.c.status == PENDING,
            deliveries.c.next_attempt_at <= now,
            or_(deliveries.c.claimed_until.is_(None), deliveries.c.claimed_until < now),
        )
        .order_by(deliveries.c.next_attempt_at)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    claim = (
        update(deliveries)
        .where(deliveries.c.id == due)
        .values(claimed_until=now + lease, attempts=deliveries.c.attempts + 1)
        .returning(
            deliveries.c.id,
            deliveries.c.url,
            deliveries.c.event,
            deliveries.c.body,
            deliveries.c.attempts,
        )
    )
    with db.write() as conn:
        return conn.execute(claim).first()


def finish_delivery(db, delivery_id, error=None, retry_at=None):
    """Record an attempt: delivered when there is no error, else retried at retry_at or failed."""
    values = {"claimed_until": None, "last_error": error}
    if error is None:
        values.update(status=DELIVERED, delivered_at=utcnow())
    elif retry_at is not None:
        values.update(next_attempt_at=retry_at)
    else:
        values.update(status=FAILED)
    with db.write() as conn:
        conn.execute(
            update(deliveries)
            .where(deliveries.c.id == delivery_id, deliveries.c.status == PENDING)
            .values(values)
        )


def delivery_summary(db):
    """Deliveries counted by status, and when the oldest pending one was created."""
    counts = select(deliveries.c.status, func.count()).group_by(deliveries.c.status)
    oldest = select(func.min(deliveries.c.created_at)).where(deliveries.c.status == PENDING)
    with db.read() as conn:
        by_status = dict(conn.execute(counts).all())
        return {status: by_status.get(status, 0) for status in (PENDING, DELIVERED, FAILED)}, (
            conn.execute(oldest).scalar_one()
        )


def failed_deliveries(db):
    """Every delivery that ran out of attempts, oldest first."""
    query = (
        select(deliveries.c.id, deliveries.c.url, deliveries.c.attempts, deliveries.c.last_error)
        .where(deliveries.c.status == FAILED)
        .order_by(deliveries.c.created_at)
    )
    with db.read() as conn:
        return conn.execute(query).all()


def retry_failed_deliveries(db):
    """Make every failed delivery pending again with fresh attempts; how many there were."""
    with db.write() as conn:
        return conn.execute(
            update(deliveries)
            .where(deliveries.c.status == FAILED)
            .values(status=PENDING, attempts=0, next_attempt_at=utcnow(), last_error=None)
        ).rowcount


def ping(db):
    """Raise unless the database answers and holds the schema."""
    with db.read() as conn:
        conn.execute(select(plants.c.id).limit(1)).all()
