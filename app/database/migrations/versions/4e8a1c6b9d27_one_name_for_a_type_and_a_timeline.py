"""One name for each thing: a delivery's event type is its event_type column (an "event" is a
row of the feed), and the endpoints' timelines are the webhook_endpoint_timelines table.

Renames only: every row, index and default stays, under the new names.

Revision ID: 4e8a1c6b9d27
Revises: 0c9e5d7a3b21
Create Date: 2026-11-29 10:20:00.000000
"""

from alembic import op

revision = "4e8a1c6b9d27"
down_revision = "0c9e5d7a3b21"
branch_labels = None
depends_on = None

OLD, NEW = "webhook_endpoint_history", "webhook_endpoint_timelines"


def upgrade():
    """Rename the column and the table, with the table's index, key and sequence."""
    op.execute("ALTER TABLE deliveries RENAME COLUMN event TO event_type")
    _rename(OLD, NEW)


def downgrade():
    """The names before."""
    _rename(NEW, OLD)
    op.execute("ALTER TABLE deliveries RENAME COLUMN event_type TO event")


def _rename(old, new):
    op.rename_table(old, new)
    if op.get_bind().dialect.name == "postgresql":
        # PostgreSQL keeps what belonged to the table under their old names.
        op.execute(f"ALTER INDEX {old}_endpoint RENAME TO {new}_endpoint")
        op.execute(f"ALTER INDEX {old}_place RENAME TO {new}_place")
        op.execute(f"ALTER TABLE {new} RENAME CONSTRAINT {old}_pkey TO {new}_pkey")
        op.execute(f"ALTER SEQUENCE {old}_id_seq RENAME TO {new}_id_seq")
        return
    # SQLite renames no index: made again on the table under its new name.
    op.drop_index(f"{old}_endpoint", table_name=new)
    op.create_index(f"{new}_endpoint", new, ["endpoint_id", "since"])
