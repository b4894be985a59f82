"""Baseline: the plants, tokens and deliveries tables, as 1.0's init-db created them.

Revision ID: 5862f41316ec
Revises:
Create Date: 2026-11-23 02:50:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "5862f41316ec"
down_revision = None
branch_labels = None
depends_on = None

# The schema of this revision, frozen here rather than imported from the service, which moves on:
# adopting a database made by 1.0's init-db compares its tables with this MetaData.
metadata = sa.MetaData()

sa.Table(
    "plants",
    metadata,
    sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("tag", sa.String(255)),
    sa.Column(
        "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
    ),
)

sa.Table(
    "tokens",
    metadata,
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("scope", sa.String(20), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True)),
    sa.Column("revoked_at", sa.DateTime(timezone=True)),
)

sa.Table(
    "deliveries",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("event", sa.String(50), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("claimed_until", sa.DateTime(timezone=True)),
    sa.Column("delivered_at", sa.DateTime(timezone=True)),
    sa.Column("last_error", sa.Text),
    sa.Index("deliveries_due", "status", "next_attempt_at"),
)


def upgrade():
    """Create the three tables and their index; an existing one is an error, never replaced."""
    metadata.create_all(op.get_bind(), checkfirst=False)


def downgrade():
    """Drop the three tables."""
    metadata.drop_all(op.get_bind(), checkfirst=False)
