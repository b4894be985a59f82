"""Alembic's environment: the connection app/migrate.py opened, and the tables of app/db.py."""

from alembic import context

from app.db import metadata
from app.migrate import render_item

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    # SQLite's ALTER TABLE cannot change a column: batch mode copies the table instead.
    render_as_batch=connection.dialect.name == "sqlite",
    render_item=render_item,
    compare_server_default=True,
)
with context.begin_transaction():
    context.run_migrations()
