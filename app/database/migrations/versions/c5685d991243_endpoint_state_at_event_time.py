"""The fan-out reads an endpoint as it was when each event was written: each endpoint keeps
when it was last enabled (beside when it was last disabled, no longer cleared), and its events
before their last change, with the change's time.

Revision ID: c5685d991243
Revises: 2c4f02771624
Create Date: 2026-11-25 23:20:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "c5685d991243"
down_revision = "2c4f02771624"
branch_labels = None
depends_on = None


def upgrade():
    """Three nullable columns: every endpoint starts as if unchanged since it was made."""
    with op.batch_alter_table("webhook_endpoints") as batch_op:
        batch_op.add_column(sa.Column("enabled_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("previous_events", sa.Text(), nullable=True))
        batch_op.add_column(
            sa.Column("events_changed_at", sa.DateTime(timezone=True), nullable=True)
        )


def downgrade():
    """Drop them: events not fanned out yet go by the endpoints' state at their fan-out."""
    with op.batch_alter_table("webhook_endpoints") as batch_op:
        batch_op.drop_column("events_changed_at")
        batch_op.drop_column("previous_events")
        batch_op.drop_column("enabled_at")
