"""An endpoint's throttle: the most attempts a second it gets over every worker, and the
earliest time the next one may begin, which each claim advances.

Revision ID: b7e4c2a9d1f6
Revises: d8b3e6f1a092
Create Date: 2026-11-27 18:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "b7e4c2a9d1f6"
down_revision = "d8b3e6f1a092"
branch_labels = None
depends_on = None


def upgrade():
    """Two nullable columns: every endpoint starts with no limit."""
    with op.batch_alter_table("webhook_endpoints") as batch_op:
        batch_op.add_column(sa.Column("throttle_rate", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("throttle_next", sa.DateTime(timezone=True), nullable=True))


def downgrade():
    """Drop them: every endpoint is sent to at the pace it answers."""
    with op.batch_alter_table("webhook_endpoints") as batch_op:
        batch_op.drop_column("throttle_next")
        batch_op.drop_column("throttle_rate")
