"""Plants indexed by (tag, id): a page filtered by tag reads only that tag's rows, in id order,
so it costs what an unfiltered page costs however rare the tag. No row changes.

Revision ID: 633e8f9f8966
Revises: b2970274fef0
Create Date: 2026-11-24 02:40:18.572808
"""

from alembic import op

revision = "633e8f9f8966"
down_revision = "b2970274fef0"
branch_labels = None
depends_on = None


def upgrade():
    """Index the plants by tag, then id; both backends create an index without a batch."""
    op.create_index("plants_tag_id", "plants", ["tag", "id"], unique=False)


def downgrade():
    """Drop the index: a filtered page scans again, nothing is lost."""
    op.drop_index("plants_tag_id", table_name="plants")
