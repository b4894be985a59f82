"""Plants indexed by (tag, id): a page filtered by tag reads only that tag's rows, in id order,
so it costs what an unfiltered page costs however rare the tag. On SQLite the plants' id
becomes the rowid, so that a create writes no more than before: the table is the id's index.
Every row is kept.

Revision ID: 633e8f9f8966
Revises: b2970274fef0
Create Date: 2026-11-24 02:40:18.572808
"""

import sqlalchemy as sa
from alembic import op

revision = "633e8f9f8966"
down_revision = "b2970274fef0"
branch_labels = None
depends_on = None


def _id_type(old, new):
    # Only SQLite: an INTEGER primary key is the rowid, where BIGINT keeps a separate index.
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("plants", recreate="always") as batch_op:
            batch_op.alter_column("id", existing_type=old, type_=new, existing_nullable=False)


def upgrade():
    """The id as SQLite's rowid, then the index of the plants by tag and id."""
    _id_type(sa.BigInteger(), sa.Integer())
    op.create_index("plants_tag_id", "plants", ["tag", "id"], unique=False)


def downgrade():
    """Drop the index (a filtered page scans again), and the id back to a BIGINT on SQLite."""
    op.drop_index("plants_tag_id", table_name="plants")
    _id_type(sa.Integer(), sa.BigInteger())
