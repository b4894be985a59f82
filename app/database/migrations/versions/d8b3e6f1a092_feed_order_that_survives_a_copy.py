"""A feed order that survives a copy into another cluster, and endpoints judged without clocks:
events, the cursors and the endpoints' states get the epoch of the cluster that wrote them;
events keep the snapshot they were written in, the states the id of the transaction that made
them; on PostgreSQL the columns' defaults write them, whoever writes (older code too).

Revision ID: d8b3e6f1a092
Revises: a4d2f7c9e813
Create Date: 2026-11-27 17:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "d8b3e6f1a092"
down_revision = "a4d2f7c9e813"
branch_labels = None
depends_on = None

XID = "pg_current_xact_id()::text::bigint"
# The epoch of the cluster a transaction runs in: the newest epoch, unless the feed's newest
# transaction ids there are in this cluster's future (a copy whose counter is lower): then the
# next, made once, whoever writes first.
EPOCH_FUNCTION = """
CREATE FUNCTION plantstore_feed_epoch() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    latest bigint;
    highest bigint;
BEGIN
    FOR attempt IN 1..2 LOOP
        SELECT coalesce(max(epoch), 0) INTO latest FROM feed_epochs;
        SELECT max(xid) INTO highest FROM (
            SELECT max(xid) AS xid FROM events WHERE epoch = latest
            UNION ALL
            SELECT max(xid) FROM webhook_endpoint_history WHERE epoch = latest
        ) AS newest;
        IF highest IS NULL
           OR highest < pg_snapshot_xmax(pg_current_snapshot())::text::bigint THEN
            RETURN latest;
        END IF;
        IF attempt = 1 THEN
            -- One writer opens the epoch; the others wait, then find it.
            LOCK TABLE feed_epochs IN SHARE ROW EXCLUSIVE MODE;
        END IF;
    END LOOP;
    INSERT INTO feed_epochs (epoch, since) VALUES (latest + 1, now());
    RETURN latest + 1;
END
$$
"""


def upgrade():
    """Every event and state so far is of the first epoch, 0; states made before have 0 for
    their transaction, which every event written from now on saw commit."""
    op.create_table(
        "feed_epochs",
        sa.Column("epoch", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("epoch"),
    )
    with op.batch_alter_table("events") as batch_op:
        batch_op.add_column(sa.Column("epoch", sa.BigInteger(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("snapshot", sa.Text(), nullable=True))
    with op.batch_alter_table("event_cursors") as batch_op:
        batch_op.add_column(sa.Column("epoch", sa.BigInteger(), server_default="0", nullable=False))
    with op.batch_alter_table("webhook_endpoint_history") as batch_op:
        batch_op.add_column(sa.Column("epoch", sa.BigInteger(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("xid", sa.BigInteger(), server_default="0", nullable=False))
    if op.get_bind().dialect.name != "postgresql":  # SQLite: one cluster, one writer at a time
        return
    op.drop_index("events_feed", table_name="events")
    op.create_index("events_feed", "events", ["epoch", "xid", "id"], unique=False)
    op.create_index("webhook_endpoint_history_place", "webhook_endpoint_history", ["epoch", "xid"])
    op.execute(EPOCH_FUNCTION)
    for table in ("events", "webhook_endpoint_history"):
        op.execute(f"ALTER TABLE {table} ALTER COLUMN xid SET DEFAULT {XID}")
        op.execute(f"ALTER TABLE {table} ALTER COLUMN epoch SET DEFAULT plantstore_feed_epoch()")
    op.execute("ALTER TABLE events ALTER COLUMN snapshot SET DEFAULT pg_current_snapshot()::text")


def downgrade():
    """Back to one order by (xid, id): the events of a later epoch sort by their transaction
    id alone again, and the states are judged by their time."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for table in ("events", "webhook_endpoint_history"):
            op.execute(f"ALTER TABLE {table} ALTER COLUMN epoch DROP DEFAULT")
        op.execute("ALTER TABLE events ALTER COLUMN xid SET DEFAULT 0")
        op.execute("ALTER TABLE events ALTER COLUMN snapshot DROP DEFAULT")
        op.execute("DROP FUNCTION plantstore_feed_epoch()")
        op.drop_index("webhook_endpoint_history_place", table_name="webhook_endpoint_history")
        op.drop_index("events_feed", table_name="events")
        op.create_index("events_feed", "events", ["xid", "id"], unique=False)
    with op.batch_alter_table("webhook_endpoint_history") as batch_op:
        batch_op.drop_column("xid")
        batch_op.drop_column("epoch")
    with op.batch_alter_table("event_cursors") as batch_op:
        batch_op.drop_column("epoch")
    with op.batch_alter_table("events") as batch_op:
        batch_op.drop_column("snapshot")
        batch_op.drop_column("epoch")
    op.drop_table("feed_epochs")
