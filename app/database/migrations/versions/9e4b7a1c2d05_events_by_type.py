"""The events indexed by type, in the feed's order: a page of the feed filtered by a rare type
reads that type's events, not every event after its place.

Revision ID: 9e4b7a1c2d05
Revises: 7b3d9e2f4a10
Create Date: 2026-11-29 16:10:00.000000
"""

from alembic import op

revision = "9e4b7a1c2d05"
down_revision = "7b3d9e2f4a10"
branch_labels = None
depends_on = None

# Each backend's feed order after the type: (epoch, xid, id) on PostgreSQL; SQLite's index
# holds the rowid, which is the id.
INDEXES = {
    "postgresql": ("events_type", ["type", "epoch", "xid", "id"]),
    "sqlite": ("events_type_rowid", ["type"]),
}


def upgrade():
    """One index of the events by type."""
    name, columns = INDEXES[op.get_context().dialect.name]
    op.create_index(name, "events", columns)


def downgrade():
    """Drop it: a filtered page reads the feed again."""
    name, _ = INDEXES[op.get_context().dialect.name]
    op.drop_index(name, table_name="events")
