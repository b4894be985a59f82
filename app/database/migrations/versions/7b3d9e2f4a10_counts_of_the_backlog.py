"""Partial indexes of the deliveries not yet delivered: the counts of `webhooks status` and
/metrics, and the failed list, read the outbox's backlog, not every delivery it keeps.

Revision ID: 7b3d9e2f4a10
Revises: 46667d35e13b
Create Date: 2026-11-29 15:40:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "7b3d9e2f4a10"
down_revision = "46667d35e13b"
branch_labels = None
depends_on = None

UNSETTLED = "status IN ('pending', 'failed')"
FAILED = "status = 'failed'"


def upgrade():
    """Two partial indexes: the pending and failed deliveries by receiver, the failed by age."""
    for name, columns, where in _INDEXES:
        op.create_index(
            name,
            "deliveries",
            columns,
            postgresql_where=sa.text(where),
            sqlite_where=sa.text(where),
        )


def downgrade():
    """Drop them: the counts scan the deliveries again."""
    for name, _, _ in reversed(_INDEXES):
        op.drop_index(name, table_name="deliveries")


_INDEXES = (
    ("deliveries_unsettled", ["receiver", "status", "created_at"], UNSETTLED),
    ("deliveries_failed", ["created_at", "id"], FAILED),
)
