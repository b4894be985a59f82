"""Every SQL statement the service runs, one module per table."""

import datetime
import functools

from ..db import metadata


@functools.cache
def schema_checks():
    """One statement per table, naming every column: each fails if its table or a column is
    missing. Made at first use: feature packages add their tables to the metadata on import."""
    return [
        f"SELECT {', '.join(column.name for column in table.columns)} FROM {table.name} LIMIT 0"
        for table in metadata.sorted_tables
    ]


def utcnow():
    """The current time, in UTC."""
    return datetime.datetime.now(datetime.UTC)


def ping(db):
    """Raise unless the database answers and holds every table and column of the schema."""
    with db.cursor() as cursor:
        for statement in schema_checks():
            cursor.execute(statement)
            cursor.fetchall()
