"""SQL of the tokens table: a lookup on every request, the rest for the ``tokens`` commands."""

from sqlalchemy import func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ..db import driver_sql, tokens
from . import utcnow


class DuplicateName(Exception):
    """A token with this name exists already."""


# Every authenticated request runs this one, on a driver cursor.
FIND_LIVE = driver_sql(
    "SELECT name, scope FROM tokens WHERE token_hash = :token_hash AND revoked_at IS NULL "
    "AND (expires_at IS NULL OR expires_at > :now)"
)


def create(db, name, token_hash, scope, expires_at):
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


def find_live(db, token_hash):
    """(name, scope) of the live (not revoked, not expired) token with this hash, or None."""
    with db.cursor() as cursor:
        cursor.execute(
            FIND_LIVE[db.dialect], {"token_hash": token_hash, "now": db.bind_time(utcnow())}
        )
        return cursor.fetchone()


def _live():
    return (
        tokens.c.revoked_at.is_(None),
        or_(tokens.c.expires_at.is_(None), tokens.c.expires_at > utcnow()),
    )


def list_all(db):
    """Every token's name, scope, creation, expiry and revocation; never its hash."""
    query = select(
        tokens.c.name, tokens.c.scope, tokens.c.created_at, tokens.c.expires_at, tokens.c.revoked_at
    ).order_by(tokens.c.created_at, tokens.c.name)
    with db.read() as conn:
        return conn.execute(query).all()


def revoke(db, name):
    """Revoke the token with this name; False if there is none. Revoking twice is harmless."""
    with db.write() as conn:
        conn.execute(
            update(tokens)
            .where(tokens.c.name == name, tokens.c.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )
        return conn.execute(select(tokens.c.name).where(tokens.c.name == name)).first() is not None


def count_live(db):
    """How many tokens in the table could authenticate a request now."""
    query = select(func.count()).select_from(tokens).where(*_live())
    with db.read() as conn:
        return conn.execute(query).scalar_one()
