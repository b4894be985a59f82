"""The deliveries indexed by status, a partial index each, in place of one index of every
delivery by receiver, status and time: the counts of `webhooks status` and /metrics, the failed
list and a round's search for receivers with work read the outbox's backlog, not every delivery
it keeps, and the retention reads the oldest delivered rows whatever their receiver. A pending
or delivered row is in one of them at a time: as many index entries as before.

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

PENDING = "status = 'pending'"
DELIVERED = "status = 'delivered'"
FAILED = "status = 'failed'"
# The index they replace, which older code's statements used.
REPLACED = ("deliveries_receiver_due", ["receiver", "status", "next_attempt_at"])


def upgrade():
    """Partial indexes: the pending deliveries by receiver and due time, the delivered by when,
    the failed by age and by receiver; then the index they replace goes."""
    for name, columns, where in _INDEXES:
        op.create_index(
            name,
            "deliveries",
            columns,
            postgresql_where=sa.text(where),
            sqlite_where=sa.text(where),
        )
    op.drop_index(REPLACED[0], table_name="deliveries")


def downgrade():
    """The index by receiver, status and time again, then drop these: the counts scan the
    deliveries again."""
    op.create_index(REPLACED[0], "deliveries", REPLACED[1])
    for name, _, _ in reversed(_INDEXES):
        op.drop_index(name, table_name="deliveries")


_INDEXES = (
    ("deliveries_pending", ["receiver", "next_attempt_at", "created_at"], PENDING),
    ("deliveries_delivered", ["next_attempt_at"], DELIVERED),
    ("deliveries_failed", ["created_at", "id"], FAILED),
    ("deliveries_failed_receiver", ["receiver", "created_at"], FAILED),
)
