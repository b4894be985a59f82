"""Deliveries indexed per receiver: each receiver's due ones for its claims, its old delivered
ones for the retention.

Revision ID: f3857f218624
Revises: 5862f41316ec
Create Date: 2026-11-23 16:53:24.467161
"""

from alembic import op

revision = "f3857f218624"
down_revision = "5862f41316ec"
branch_labels = None
depends_on = None


def upgrade():
    """Claim each receiver's due deliveries apart; find old delivered ones without a scan."""
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_index("deliveries_due")
        batch_op.create_index(
            "deliveries_receiver_due", ["url", "status", "next_attempt_at"], unique=False
        )


def downgrade():
    """Back to the one index on due deliveries."""
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_index("deliveries_receiver_due")
        batch_op.create_index("deliveries_due", ["status", "next_attempt_at"], unique=False)
