"""Webhook endpoints registered through the API: their table, the count of those the worker
disabled, and deliveries keyed by receiver (an operator's URL or an endpoint's id) with what
an endpoint's delivery log shows. Pending and failed deliveries carry over as they are.

Revision ID: b2970274fef0
Revises: 173ab291aab1
Create Date: 2026-11-24 01:50:00.000000
"""

import sqlalchemy as sa
from alembic import op
from alembic.util import CommandError

revision = "b2970274fef0"
down_revision = "173ab291aab1"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade():
    """The endpoints and disables tables; deliveries.url becomes receiver, with the log's
    columns and index."""
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("events", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", sa.Text(), nullable=True),
        sa.Column("disabled_at", TIME, nullable=True),
        sa.Column("failing_since", TIME, nullable=True),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("previous_secret", sa.Text(), nullable=True),
        sa.Column("previous_until", TIME, nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "webhook_disables",
        sa.Column("reason", sa.String(length=20), nullable=False),
        sa.Column("count", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("reason"),
    )
    op.drop_index("deliveries_receiver_due", "deliveries")
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.alter_column("url", new_column_name="receiver")
        batch_op.add_column(sa.Column("last_attempt_at", TIME, nullable=True))
        batch_op.add_column(sa.Column("response_status", sa.Integer(), nullable=True))
    # After the batch: SQLite's copy of the table knows the column by its new name only then.
    op.create_index(
        "deliveries_receiver_due", "deliveries", ["receiver", "status", "next_attempt_at"]
    )
    op.create_index("deliveries_receiver_created", "deliveries", ["receiver", "created_at"])


def downgrade():
    """Back to deliveries by URL, refusing while an endpoint exists: its deliveries and secret
    would be lost."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        # No endpoint registered between the count and the drop (SQLite's BEGIN IMMEDIATE holds).
        op.execute("LOCK TABLE webhook_endpoints IN ACCESS EXCLUSIVE MODE")
    endpoints = bind.execute(sa.text("SELECT COUNT(*) FROM webhook_endpoints")).scalar()
    if endpoints:
        raise CommandError(
            f"{endpoints} webhook endpoint(s) exist: delete them through the API, then downgrade"
        )
    op.drop_index("deliveries_receiver_created", "deliveries")
    op.drop_index("deliveries_receiver_due", "deliveries")
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_column("response_status")
        batch_op.drop_column("last_attempt_at")
        batch_op.alter_column("receiver", new_column_name="url")
    op.create_index("deliveries_receiver_due", "deliveries", ["url", "status", "next_attempt_at"])
    op.drop_table("webhook_disables")
    op.drop_table("webhook_endpoints")
