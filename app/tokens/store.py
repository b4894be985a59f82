"""The tokens table and its SQL: a lookup on every request, the rest for the ``tokens`` commands."""

import sqlalchemy
from sqlalchemy import Column, String, Table, bindparam
from sqlalchemy.exc import IntegrityError

from ..database import Now, Statement, metadata
from ..database.column_types import UTCDateTime

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

LIVE = sqlalchemy.and_(
    tokens.c.revoked_at.is_(None),
    sqlalchemy.or_(tokens.c.expires_at.is_(None), tokens.c.expires_at > Now()),
)
# Every authenticated request runs this one; a Live is its row, by name.
LIVE_BY_HASH = sqlalchemy.select(tokens.c.name, tokens.c.scope).where(
    tokens.c.token_hash == bindparam("token_hash"), LIVE
)
FIND_LIVE = Statement(LIVE_BY_HASH, "Live")
# A new token, made now by the database's clock; revoked_at is None.
INSERT = Statement(
    sqlalchemy.insert(tokens).values(
        {
            "name": bindparam("name"),
            "token_hash": bindparam("token_hash"),
            "scope": bindparam("scope"),
            "created_at": Now(),
            "expires_at": bindparam("expires_at"),
        }
    )
)
# What ``tokens list`` shows of a token (a Token): every column but its hash.
SHOWN = sqlalchemy.select(*(column for column in tokens.c if column is not tokens.c.token_hash))
SELECT_ALL = Statement(SHOWN.order_by(tokens.c.created_at, tokens.c.name), "Token")
REVOKE = Statement(
    sqlalchemy.update(tokens)
    .values(revoked_at=Now())
    .where(tokens.c.name == bindparam("name"), tokens.c.revoked_at.is_(None))
)
EXISTS = Statement(sqlalchemy.select(tokens.c.name).where(tokens.c.name == bindparam("name")))
COUNT_LIVE = Statement(
    sqlalchemy.select(sqlalchemy.func.count().label("count")).select_from(tokens).where(LIVE)
)


class DuplicateName(Exception):
    """A token with this name exists already."""


def create(db, name, token_hash, scope, expires_at):
    """Record a token by its hash; raise DuplicateName if the name is taken."""
    row = {
        "name": name,
        "token_hash": token_hash,
        "scope": scope,
        "expires_at": expires_at,
    }
    try:
        with db.transaction() as cursor:
            INSERT.execute(cursor, row)
    except IntegrityError:
        raise DuplicateName(name) from None


def find_live(db, token_hash):
    """The name and scope (a Live) of the live (not revoked, not expired) token with this
    hash, or None."""
    with db.cursor() as cursor:
        FIND_LIVE.execute(cursor, {"token_hash": token_hash})
        return FIND_LIVE.row(cursor)


def list_all(db):
    """Every token (a Token: all but its hash), oldest first."""
    with db.cursor() as cursor:
        SELECT_ALL.execute(cursor)
        return SELECT_ALL.rows(cursor)


def revoke(db, name):
    """Revoke the token with this name; False if there is none. Revoking twice is harmless."""
    with db.transaction() as cursor:
        REVOKE.execute(cursor, {"name": name})
        EXISTS.execute(cursor, {"name": name})
        return EXISTS.value(cursor) is not None


def count_live(db):
    """How many tokens in the table could authenticate a request now."""
    with db.cursor() as cursor:
        COUNT_LIVE.execute(cursor)
        return COUNT_LIVE.value(cursor)
