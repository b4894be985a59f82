"""Each worker's window per receiver, written as it delivers, so that /metrics shows them.

Revision ID: 9c41d2a7e5b3
Revises: c5685d991243
Create Date: 2026-11-25 23:40:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "9c41d2a7e5b3"
down_revision = "c5685d991243"
branch_labels = None
depends_on = None


def upgrade():
    """The webhook_windows table: a row per worker and receiver."""
    op.create_table(
        "webhook_windows",
        sa.Column("worker", sa.String(length=32), nullable=False),
        sa.Column("receiver", sa.Text(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("worker", "receiver"),
    )


def downgrade():
    """Drop it: the windows are rewritten within a second by every running worker."""
    op.drop_table("webhook_windows")
