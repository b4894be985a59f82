"""An endpoint's payload (the body its deliveries carry), and a delivery's response_body (the
first 1024 bytes of the last answer's body).

Every endpoint registered before this revision keeps "plant", the body it has received so far:
an upgrade changes no receiver's bytes. Deliveries attempted before it have no response_body.

Revision ID: 46667d35e13b
Revises: 4e8a1c6b9d27
Create Date: 2026-11-29 13:10:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "46667d35e13b"
down_revision = "4e8a1c6b9d27"
branch_labels = None
depends_on = None


def upgrade():
    """Two columns: payload "plant" for the endpoints there are, response_body null."""
    with op.batch_alter_table("webhook_endpoints") as batch_op:
        batch_op.add_column(
            sa.Column("payload", sa.String(10), nullable=False, server_default="plant")
        )
    with op.batch_alter_table("deliveries") as batch_op:
        batch_op.add_column(sa.Column("response_body", sa.Text(), nullable=True))


def downgrade():
    """Drop them: every endpoint gets its plant bodies again, and logs no answer's body."""
    with op.batch_alter_table("deliveries") as batch_op:
        batch_op.drop_column("response_body")
    with op.batch_alter_table("webhook_endpoints") as batch_op:
        batch_op.drop_column("payload")
