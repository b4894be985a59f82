"""Every state of an endpoint from the time it took it (webhook_endpoint_history), in place of
its last change of each kind: the fan-out of an event written before several changes goes by
the state it was written in.

Revision ID: e1a7c3d9b2f4
Revises: 9c41d2a7e5b3
Create Date: 2026-11-26 14:20:00.000000
"""

import datetime
import itertools
import json

import sqlalchemy as sa
from alembic import op

revision = "e1a7c3d9b2f4"
down_revision = "9c41d2a7e5b3"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)
# The columns whose last values the history replaces.
LAST_CHANGES = ("disabled_at", "enabled_at", "previous_events", "events_changed_at")
history = sa.table(
    "webhook_endpoint_history",
    sa.column("id", sa.Integer),
    sa.column("endpoint_id", sa.String),
    sa.column("since", TIME),
    sa.column("enabled", sa.Boolean),
    sa.column("events", sa.Text),
)
endpoints = sa.table(
    "webhook_endpoints",
    sa.column("id", sa.String),
    sa.column("enabled", sa.Boolean),
    sa.column("events", sa.Text),
    sa.column("created_at", TIME),
    sa.column("disabled_at", TIME),
    sa.column("enabled_at", TIME),
    sa.column("previous_events", sa.Text),
    sa.column("events_changed_at", TIME),
)


def upgrade():
    """The history table, each endpoint's states rebuilt from its last changes as the fan-out
    judged them, then those columns dropped."""
    op.create_table(
        "webhook_endpoint_history",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("endpoint_id", sa.String(length=64), nullable=False),
        sa.Column("since", TIME, nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("events", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "webhook_endpoint_history_endpoint",
        "webhook_endpoint_history",
        ["endpoint_id", "since"],
        unique=False,
    )
    rows = op.get_bind().execute(sa.select(endpoints)).mappings().all()
    states = [state for row in rows for state in _states(_aware(row))]
    if states:
        op.bulk_insert(history, states)
    with op.batch_alter_table("webhook_endpoints") as batch_op:
        for column in reversed(LAST_CHANGES):
            batch_op.drop_column(column)


def _aware(row):
    # SQLite gives back naive UTC.
    return {
        key: value.replace(tzinfo=datetime.UTC)
        if isinstance(value, datetime.datetime) and value.tzinfo is None
        else value
        for key, value in row.items()
    }


def _states(row):
    # The state at each time one of the last changes took effect, as the old fan-out judged it.
    times = {row[key] for key in ("disabled_at", "enabled_at", "events_changed_at")}
    times = sorted(at for at in times - {None} if at > row["created_at"])
    for at in [row["created_at"], *times]:
        changed = row["events_changed_at"] is not None and at < row["events_changed_at"]
        events = row["previous_events"] if changed else row["events"]
        enabled = _enabled(row, at)
        yield {"endpoint_id": row["id"], "since": at, "enabled": enabled, "events": events}


def _enabled(row, at):
    disabled = row["disabled_at"] is not None and row["disabled_at"] <= at
    if not row["enabled"]:
        return not disabled
    return not (disabled and row["enabled_at"] is not None and at < row["enabled_at"])


def downgrade():
    """The last changes again, from the history: the last disable, the last enable after it,
    and the events before their last change; then the history dropped."""
    with op.batch_alter_table("webhook_endpoints") as batch_op:
        batch_op.add_column(sa.Column("disabled_at", TIME, nullable=True))
        batch_op.add_column(sa.Column("enabled_at", TIME, nullable=True))
        batch_op.add_column(sa.Column("previous_events", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("events_changed_at", TIME, nullable=True))
    bind = op.get_bind()
    c = history.c
    query = sa.select(c.endpoint_id, c.since, c.enabled, c.events).order_by(
        c.endpoint_id, c.since, c.id
    )
    by_endpoint = {}
    for row in bind.execute(query):
        by_endpoint.setdefault(row.endpoint_id, []).append((row.since, row.enabled, row.events))
    for endpoint_id, states in by_endpoint.items():
        update = endpoints.update().where(endpoints.c.id == endpoint_id)
        bind.execute(update.values(**_last_changes(states)))
    op.drop_index("webhook_endpoint_history_endpoint", table_name="webhook_endpoint_history")
    op.drop_table("webhook_endpoint_history")


def _last_changes(states):
    # The columns' values from an endpoint's states, oldest first.
    found = dict.fromkeys(LAST_CHANGES)
    if not states[0][1]:  # made disabled
        found["disabled_at"] = states[0][0]
    for (_, was_enabled, events), (at, enabled, now_events) in itertools.pairwise(states):
        if was_enabled and not enabled:
            found["disabled_at"], found["enabled_at"] = at, None
        elif enabled and not was_enabled:
            found["enabled_at"] = at
        if json.loads(events) != json.loads(now_events):
            found["previous_events"], found["events_changed_at"] = events, at
    return found
