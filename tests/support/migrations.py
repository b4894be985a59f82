"""The schema as 1.0 made it, its rows, and what the migration tests read back of a database."""

import datetime

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Column, MetaData, String, Table, Text, inspect, literal_column, select

from app.database import metadata, migrate
from app.database.backend_schema import of_backend, server_defaults_of
from app.tokens.lookup import token_hash

HEAD = migrate.script_directory().get_current_head()
ISSUED_TOKEN = "pst_issued-before-the-migrations-existed-000000"

# What 1.0's `init-db` (metadata.create_all) executed, written out so that it cannot drift.
SCHEMA_1_0 = """
CREATE TABLE deliveries (
    id VARCHAR(32) NOT NULL, url TEXT NOT NULL, event VARCHAR(50) NOT NULL, body TEXT NOT NULL,
    status VARCHAR(10) NOT NULL, attempts INTEGER NOT NULL, created_at {timestamp} NOT NULL,
    next_attempt_at {timestamp} NOT NULL, claimed_until {timestamp}, delivered_at {timestamp},
    last_error TEXT, PRIMARY KEY (id)
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE TABLE plants (
    id BIGINT NOT NULL, name VARCHAR(255) NOT NULL, tag VARCHAR(255),
    created_at {timestamp} DEFAULT {now} NOT NULL, PRIMARY KEY (id)
);
CREATE TABLE tokens (
    name VARCHAR(100) NOT NULL, token_hash VARCHAR(64) NOT NULL, scope VARCHAR(20) NOT NULL,
    created_at {timestamp} NOT NULL, expires_at {timestamp}, revoked_at {timestamp},
    PRIMARY KEY (name), UNIQUE (token_hash)
)
"""
DIALECT_WORDS = {
    "sqlite": {"timestamp": "DATETIME", "now": "CURRENT_TIMESTAMP"},
    "postgresql": {"timestamp": "TIMESTAMP WITH TIME ZONE", "now": "now()"},
}
NOW = datetime.datetime(2026, 11, 23, 12, 0, tzinfo=datetime.UTC)
ROWS = {
    "plants": [
        {"id": -(2**63), "name": "Oldest", "tag": None, "created_at": NOW},
        {"id": 1, "name": "Monstera", "tag": "tropical", "created_at": NOW},
        {"id": 2**63 - 1, "name": "Newest", "tag": "", "created_at": NOW},
    ],
    "tokens": [
        {
            "name": "ci",
            "token_hash": token_hash(ISSUED_TOKEN),
            "scope": "read-write",
            "created_at": NOW,
            "expires_at": None,
            "revoked_at": None,
        }
    ],
    "deliveries": [
        {
            "id": f"delivery{number}",
            "url": "http://receiver.invalid/hook",
            "event": "plant.created",
            "body": '{"id": 1, "name": "Monstera", "tag": "tropical"}',
            "status": "pending",
            "attempts": number,
            "created_at": NOW,
            "next_attempt_at": NOW,
            "claimed_until": None,
            "delivered_at": None,
            "last_error": None if number == 0 else "HTTP 500",
        }
        for number in range(2)
    ],
}


def tables_1_0():
    """The service's tables as 1.0 had them, to write ROWS into a database of its schema."""
    old = MetaData()
    for table in ("plants", "tokens"):
        metadata.tables[table].to_metadata(old)
    deliveries = metadata.tables["deliveries"]
    Table(
        "deliveries",
        old,
        Column("url", Text),
        Column("event", String(50)),
        *(
            Column(column.name, column.type)
            for column in deliveries.c
            if column.name in ROWS["deliveries"][0]
        ),
    )
    return old.tables


def rows(engine):
    """Every row of the service's tables, in key order, by table: a table that is empty, or
    that the database lacks (a revision adds it), has no entry. A row leaves out its NULL
    columns, and the columns the database lacks; a delivery's receiver was its url before the
    endpoints revision, and its event_type its event before the revision that renamed it."""
    with engine.connect() as conn:
        inspector = inspect(conn)
        present = set(inspector.get_table_names())
        found = {
            table.name: [
                {key: value for key, value in row._asdict().items() if value is not None}
                for row in conn.execute(
                    select(*_columns(table, inspector)).order_by(*table.primary_key)
                )
            ]
            for table in metadata.sorted_tables
            if table.name in present
        }
    return {name: each for name, each in found.items() if each}


def _columns(table, inspector):
    names = {column["name"] for column in inspector.get_columns(table.name)}
    columns = [column for column in table.c if column.name in names]
    # Columns read under the names they have now.
    for old, new in (("url", "receiver"), ("event", "event_type")):
        if old in names and new in table.c:
            columns.append(literal_column(old).label(new))
    return columns


def revisions(engine):
    """The revisions recorded in the database."""
    with engine.connect() as conn:
        return set(MigrationContext.configure(conn).get_current_heads())


def differences(engine, target=metadata):
    """What autogenerate would change to make the database match target."""
    with engine.connect() as conn:
        backend = conn.dialect.name
        options = {
            "compare_server_default": server_defaults_of(backend),
            "include_object": of_backend(backend),
        }
        context = MigrationContext.configure(conn, opts=options)
        return compare_metadata(context, target)
