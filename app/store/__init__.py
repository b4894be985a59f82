"""Every SQL statement the service runs, one module per table."""

import datetime

from ..db import metadata

# One statement per table, naming every column: each fails if its table or a column is missing.
SCHEMA_CHECKS = [
    f"SELECT {', '.join(column.name for column in table.columns)} FROM {table.name} LIMIT 0"
    for table in metadata.sorted_tables
]


def utcnow():
    """The current time, in UTC."""
    return datetime.datetime.now(datetime.UTC)


def ping(db):
    """Raise unless the database answers and holds every table and column of the schema."""
    with db.cursor() as cursor:
        for statement in SCHEMA_CHECKS:
            cursor.execute(statement)
            cursor.fetchall()
