"""The events feed: events are kept (for PLANTSTORE_EVENT_RETENTION) in the feed's order, each
with its writing transaction's id; the fan-out follows the feed from a cursor instead of
deleting what it fanned out; each delivery names its event.

Revision ID: a4d2f7c9e813
Revises: e1a7c3d9b2f4
Create Date: 2026-11-26 15:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "a4d2f7c9e813"
down_revision = "e1a7c3d9b2f4"
branch_labels = None
depends_on = None


def upgrade():
    """Every event waiting now was never fanned out (the fan-out deleted the others): with no
    row, both cursors stand before the first, and the fan-out goes on from there."""
    with op.batch_alter_table("events") as batch_op:
        batch_op.add_column(sa.Column("xid", sa.BigInteger(), server_default="0", nullable=False))
    if op.get_bind().dialect.name == "postgresql":  # SQLite's feed order is its rowid
        op.create_index("events_feed", "events", ["xid", "id"], unique=False)
    op.create_table(
        "event_cursors",
        sa.Column("name", sa.String(length=20), nullable=False),
        sa.Column("xid", sa.BigInteger(), nullable=False),
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    with op.batch_alter_table("deliveries") as batch_op:
        batch_op.add_column(sa.Column("event_id", sa.String(length=64), nullable=True))


def downgrade():
    """Back to events deleted once fanned out: those the fan-out passed go (their deliveries
    are written), those it did not are kept for the older worker to fan out."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        # No event written, and no fan-out moved, between the read of the cursor and the delete.
        op.execute("LOCK TABLE events, event_cursors IN ACCESS EXCLUSIVE MODE")
    fanned = sa.text("SELECT xid, id FROM event_cursors WHERE name = 'fanout'")
    xid, last = bind.execute(fanned).one_or_none() or (0, 0)
    bind.execute(
        sa.text("DELETE FROM events WHERE xid < :xid OR (xid = :xid AND id <= :id)"),
        {"xid": xid, "id": last},
    )
    with op.batch_alter_table("deliveries") as batch_op:
        batch_op.drop_column("event_id")
    op.drop_table("event_cursors")
    if bind.dialect.name == "postgresql":
        op.drop_index("events_feed", table_name="events")
    with op.batch_alter_table("events") as batch_op:
        batch_op.drop_column("xid")
