"""A secret replaced by a second rotation within the overlap still signs until its own overlap
ends: each endpoint keeps the secret before its previous one, and when that one stops.

Revision ID: 2c4f02771624
Revises: 633e8f9f8966
Create Date: 2026-11-25 23:10:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "2c4f02771624"
down_revision = "633e8f9f8966"
branch_labels = None
depends_on = None


def upgrade():
    """Two nullable columns: every endpoint starts with no older secret."""
    with op.batch_alter_table("webhook_endpoints") as batch_op:
        batch_op.add_column(sa.Column("older_secret", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("older_until", sa.DateTime(timezone=True), nullable=True))


def downgrade():
    """Drop them: an older secret still in its overlap stops signing at once."""
    with op.batch_alter_table("webhook_endpoints") as batch_op:
        batch_op.drop_column("older_until")
        batch_op.drop_column("older_secret")
