"""Epochs from the cluster's identity: each epoch keeps the system identifier and timeline of
the cluster it was written in, and the first write in any other (a restore, a copy, a replica
promoted onto a new timeline) opens the next one. Transaction ids are no longer compared: a
transaction's own rows, a copy whose counter lands inside the copied range, or a promoted
replica that gives out the lost primary's ids again cannot hide or reorder an event.

Revision ID: 0c9e5d7a3b21
Revises: b7e4c2a9d1f6
Create Date: 2026-11-29 05:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0c9e5d7a3b21"
down_revision = "b7e4c2a9d1f6"
branch_labels = None
depends_on = None

# Both callable by a database owner without superuser, as a PaaS grants it. The timeline is the
# one WAL is written on now: pg_control_checkpoint()'s lags a promotion until its checkpoint.
CLUSTER_FUNCTION = """
CREATE FUNCTION plantstore_cluster(OUT system_identifier bigint, OUT timeline bigint)
LANGUAGE sql VOLATILE AS $$
    SELECT (SELECT system_identifier FROM pg_control_system()),
           ('x' || lpad(left(pg_walfile_name(pg_current_wal_lsn()), 8), 16, '0'))::bit(64)::bigint
$$
"""
# The epoch a statement here belongs to: the newest, when this cluster wrote it, else the next.
HERE_FUNCTION = """
CREATE FUNCTION plantstore_feed_here() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT CASE
        WHEN newest.epoch IS NULL THEN 0
        WHEN (newest.system_identifier, newest.timeline) = (here.system_identifier, here.timeline)
            THEN newest.epoch
        ELSE newest.epoch + 1
    END
    FROM plantstore_cluster() AS here
    LEFT JOIN (SELECT * FROM feed_epochs ORDER BY epoch DESC LIMIT 1) AS newest ON true
$$
"""
# A writer's epoch: the one here, opened by whoever writes first in a new cluster.
EPOCH_FUNCTION = """
CREATE OR REPLACE FUNCTION plantstore_feed_epoch() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    here bigint := plantstore_feed_here();
BEGIN
    IF EXISTS (SELECT FROM feed_epochs WHERE epoch = here) THEN
        RETURN here;
    END IF;
    -- One writer opens the epoch; the others wait, then find it.
    LOCK TABLE feed_epochs IN SHARE ROW EXCLUSIVE MODE;
    here := plantstore_feed_here();
    INSERT INTO feed_epochs (epoch, since, system_identifier, timeline)
        SELECT here, now(), system_identifier, timeline FROM plantstore_cluster()
        ON CONFLICT (epoch) DO NOTHING;
    RETURN here;
END
$$
"""
# Whether the feed has a place yet: else the first write opens the first epoch, 0.
PLACED = """
SELECT EXISTS (SELECT FROM feed_epochs) OR EXISTS (SELECT FROM events)
    OR EXISTS (SELECT FROM event_cursors) OR EXISTS (SELECT FROM webhook_endpoint_history)
"""
# The epoch the feed was in before this revision: the newest row, or the first epoch, 0.
NEWEST = "SELECT coalesce(max(epoch), 0) FROM feed_epochs"
# Whether this cluster wrote that epoch, as the revision before guessed it, once: unless the
# epoch's newest transaction ids are in this cluster's future (a copy whose counter is lower).
WROTE_IT = """
SELECT coalesce(max(xid) < pg_snapshot_xmax(pg_current_snapshot())::text::bigint, true)
FROM (
    SELECT max(xid) AS xid FROM events WHERE epoch = :epoch
    UNION ALL
    SELECT max(xid) FROM webhook_endpoint_history WHERE epoch = :epoch
) AS newest
"""
OLD_EPOCH_FUNCTION = """
CREATE OR REPLACE FUNCTION plantstore_feed_epoch() RETURNS bigint LANGUAGE plpgsql AS $$
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
            LOCK TABLE feed_epochs IN SHARE ROW EXCLUSIVE MODE;
        END IF;
    END LOOP;
    INSERT INTO feed_epochs (epoch, since) VALUES (latest + 1, now());
    RETURN latest + 1;
END
$$
"""


def upgrade():
    """Two columns of identity; on PostgreSQL, once the feed has a place, the newest epoch gets
    this cluster's when this cluster wrote it (a row for the first epoch too), and none when it
    is a copy's, whose first write then opens the next."""
    with op.batch_alter_table("feed_epochs") as batch_op:
        batch_op.add_column(sa.Column("system_identifier", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("timeline", sa.BigInteger(), nullable=True))
    if op.get_bind().dialect.name != "postgresql":  # SQLite: one file, one epoch, 0
        return
    op.execute(CLUSTER_FUNCTION)
    op.execute(HERE_FUNCTION)
    op.execute(EPOCH_FUNCTION)
    bind = op.get_bind()
    if not bind.execute(sa.text(PLACED)).scalar():
        return
    newest = bind.execute(sa.text(NEWEST)).scalar()
    wrote_it = bind.execute(sa.text(WROTE_IT), {"epoch": newest}).scalar()
    identity = "system_identifier, timeline" if wrote_it else "NULL, NULL"
    op.execute(
        f"INSERT INTO feed_epochs (epoch, since, system_identifier, timeline) "
        f"SELECT {newest}, now(), {identity} FROM plantstore_cluster() "
        f"ON CONFLICT (epoch) DO UPDATE SET system_identifier = excluded.system_identifier, "
        f"timeline = excluded.timeline"
    )


def downgrade():
    """Back to epochs guessed from transaction ids; the rows keep their epochs."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(OLD_EPOCH_FUNCTION)
        op.execute("DROP FUNCTION plantstore_feed_here()")
        op.execute("DROP FUNCTION plantstore_cluster()")
    with op.batch_alter_table("feed_epochs") as batch_op:
        batch_op.drop_column("timeline")
        batch_op.drop_column("system_identifier")
