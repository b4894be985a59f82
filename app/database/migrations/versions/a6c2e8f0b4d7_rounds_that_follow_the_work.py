"""What lets a worker's round cost its work, not the number of endpoints: the endpoints' change
count, one row whose serial every write of what a worker reads of webhook_endpoints moves on,
by triggers, so that a worker keeps the endpoints between rounds and reads them again only
when one changed; and a row per running worker, so that it writes a window's size only when it
changes, not every receiver's every half second.

A worker of older code keeps writing every window with its expiry, and its rows count as they
did until they expire.

Revision ID: a6c2e8f0b4d7
Revises: 9e4b7a1c2d05
Create Date: 2026-11-29 16:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "a6c2e8f0b4d7"
down_revision = "9e4b7a1c2d05"
branch_labels = None
depends_on = None

# The row is made by the first change (and again if it was deleted): no change, no row.
MOVE_ON = (
    "INSERT INTO webhook_endpoint_changes (id, serial) VALUES (1, 1) "
    "ON CONFLICT (id) DO UPDATE SET serial = webhook_endpoint_changes.serial + 1"
)
# The columns a worker reads (records.Endpoint's fields, and the event types of the timelines):
# a write of throttle_next alone, a throttled endpoint's schedule at every claim, moves nothing.
WATCHED = (
    "url, events, enabled, failing_since, secret, previous_secret, previous_until, "
    "older_secret, older_until, throttle_rate, payload"
)
WRITES = ("INSERT", f"UPDATE OF {WATCHED}", "DELETE")
# A row trigger on both: a statement that writes no row (a disable tried at each failed outcome
# of an endpoint that has not failed for long enough) moves nothing on.
POSTGRESQL = (
    f"""CREATE FUNCTION plantstore_endpoint_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {MOVE_ON};
    RETURN NULL;
END $$""",
    *(
        f"""CREATE TRIGGER webhook_endpoints_{write.split()[0].lower()}d AFTER {write}
ON webhook_endpoints FOR EACH ROW EXECUTE FUNCTION plantstore_endpoint_changed()"""
        for write in WRITES
    ),
)
SQLITE = tuple(
    f"""CREATE TRIGGER webhook_endpoints_{write.split()[0].lower()}d AFTER {write}
ON webhook_endpoints BEGIN {MOVE_ON}; END"""
    for write in WRITES
)
KINDS = ("insert", "update", "delete")


def upgrade():
    """The change count's table and its triggers; the running workers' table."""
    op.create_table(
        "webhook_endpoint_changes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("serial", sa.BigInteger(), nullable=False),
    )
    postgresql = op.get_bind().dialect.name == "postgresql"
    for statement in POSTGRESQL if postgresql else SQLITE:
        op.execute(statement)
    op.create_table(
        "webhook_window_workers",
        sa.Column("worker", sa.String(32), primary_key=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade():
    """Drop them: every round reads every endpoint again, every window is written again."""
    op.drop_table("webhook_window_workers")
    postgresql = op.get_bind().dialect.name == "postgresql"
    for kind in KINDS:
        on = " ON webhook_endpoints" if postgresql else ""
        op.execute(f"DROP TRIGGER webhook_endpoints_{kind}d{on}")
    if postgresql:
        op.execute("DROP FUNCTION plantstore_endpoint_changed()")
    op.drop_table("webhook_endpoint_changes")
