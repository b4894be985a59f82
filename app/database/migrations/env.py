"""Alembic's environment: the connection migrate.py opened, and every table of the service."""

from alembic import context

from app.database.backend_schema import of_backend, server_defaults_of
from app.database.migrate import render_item
from app.database.sql import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    # SQLite's ALTER TABLE cannot change a column: batch mode copies the table instead.
    render_as_batch=connection.dialect.name == "sqlite",
    render_item=render_item,
    compare_server_default=server_defaults_of(connection.dialect.name),
    include_object=of_backend(connection.dialect.name),
)
with context.begin_transaction():
    context.run_migrations()
