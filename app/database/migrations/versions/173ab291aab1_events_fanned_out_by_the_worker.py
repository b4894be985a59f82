"""Events fanned out by the worker: a change writes one events row, whatever the number of
receivers. The deliveries table keeps its shape, so pending and failed deliveries carry over as
they are.

Revision ID: 173ab291aab1
Revises: f3857f218624
Create Date: 2026-11-23 23:42:16.072564
"""

import sqlalchemy as sa
from alembic import op
from alembic.util import CommandError

revision = "173ab291aab1"
down_revision = "f3857f218624"
branch_labels = None
depends_on = None


def upgrade():
    """The events table: a rowid key and no other index, the cheapest row SQLite writes."""
    op.create_table(
        "events",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("type", sa.String(length=50), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade():
    """Drop the events table, refusing while an event waits: it would be lost."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        # No event written between the count and the drop (SQLite's BEGIN IMMEDIATE holds them).
        op.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
    waiting = bind.execute(sa.text("SELECT COUNT(*) FROM events")).scalar()
    if waiting:
        raise CommandError(
            f"{waiting} event(s) wait to be fanned out: run the webhook worker until none "
            "waits, then downgrade"
        )
    op.drop_table("events")
