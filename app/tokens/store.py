"""The tokens table and its SQL: a lookup on every request, the rest for the ``tokens`` commands."""

from typing import NamedTuple

from sqlalchemy import Column, String, Table
from sqlalchemy.exc import IntegrityError

from ..database import driver_sql, metadata, utcnow
from ..database.sql import UTCDateTime

tokens = Table(
    "tokens",
    metadata,
    Column("name", String(100), primary_key=True),
    # Only the SHA-256 of a token is kept: reading the database gives no usable token.
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("scope", String(20), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime),
    Column("revoked_at", UTCDateTime),
)

LIVE = "revoked_at IS NULL AND (expires_at IS NULL OR expires_at > :now)"
# Every authenticated request runs this one.
FIND_LIVE = driver_sql(f"SELECT name, scope FROM tokens WHERE token_hash = :token_hash AND {LIVE}")
INSERT = driver_sql(
    "INSERT INTO tokens (name, token_hash, scope, created_at, expires_at) "
    "VALUES (:name, :token_hash, :scope, :created_at, :expires_at)"
)
SELECT_ALL = driver_sql(
    "SELECT name, scope, created_at, expires_at, revoked_at FROM tokens ORDER BY created_at, name"
)
REVOKE = driver_sql("UPDATE tokens SET revoked_at = :now WHERE name = :name AND revoked_at IS NULL")
EXISTS = driver_sql("SELECT 1 FROM tokens WHERE name = :name")
COUNT_LIVE = driver_sql(f"SELECT count(*) FROM tokens WHERE {LIVE}")


class DuplicateName(Exception):
    """A token with this name exists already."""


class Token(NamedTuple):
    """What ``tokens list`` shows of a token: never its hash."""

    name: str
    scope: str
    created_at: object
    expires_at: object
    revoked_at: object


def create(db, name, token_hash, scope, expires_at):
    """Record a token by its hash; raise DuplicateName if the name is taken."""
    row = {
        "name": name,
        "token_hash": token_hash,
        "scope": scope,
        "created_at": db.bind_time(utcnow()),
        "expires_at": db.bind_time(expires_at),
    }
    try:
        with db.transaction() as cursor:
            cursor.execute(INSERT[db.dialect], row)
    except IntegrityError:
        raise DuplicateName(name) from None


def find_live(db, token_hash):
    """(name, scope) of the live (not revoked, not expired) token with this hash, or None."""
    with db.cursor() as cursor:
        cursor.execute(
            FIND_LIVE[db.dialect], {"token_hash": token_hash, "now": db.bind_time(utcnow())}
        )
        return cursor.fetchone()


def list_all(db):
    """Every token's name, scope, creation, expiry and revocation, oldest first."""
    with db.cursor() as cursor:
        cursor.execute(SELECT_ALL[db.dialect])
        rows = cursor.fetchall()
    return [Token(name, scope, *map(db.read_time, times)) for name, scope, *times in rows]


def revoke(db, name):
    """Revoke the token with this name; False if there is none. Revoking twice is harmless."""
    with db.transaction() as cursor:
        cursor.execute(REVOKE[db.dialect], {"name": name, "now": db.bind_time(utcnow())})
        cursor.execute(EXISTS[db.dialect], {"name": name})
        return cursor.fetchone() is not None


def count_live(db):
    """How many tokens in the table could authenticate a request now."""
    with db.cursor() as cursor:
        cursor.execute(COUNT_LIVE[db.dialect], {"now": db.bind_time(utcnow())})
        return cursor.fetchone()[0]
