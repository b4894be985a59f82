"""The webhook_disables table: endpoints the worker disabled, by reason, a counter of /metrics."""

from sqlalchemy import BigInteger, Column, String, Table, bindparam, select
from sqlalchemy.dialects import postgresql, sqlite

from ...database import Statement, inline, metadata

# Endpoints the worker disabled, by reason, since the database was made: a counter of /metrics
# that every host's worker adds to.
webhook_disables = Table(
    "webhook_disables",
    metadata,
    Column("reason", String(20), primary_key=True),
    Column("count", BigInteger, nullable=False),
)
d = webhook_disables.c


def _counted(insert):
    new = insert(webhook_disables).values(reason=bindparam("reason"), count=inline(1))
    return new.on_conflict_do_update(index_elements=[d.reason], set_={"count": d.count + inline(1)})


COUNT_DISABLE = Statement(
    {"sqlite": _counted(sqlite.insert), "postgresql": _counted(postgresql.insert)}
)
DISABLES = Statement(select(d.reason, d.count), "Disables")


def count_disable(cursor, reason):
    """Count one endpoint disabled by the worker for reason ("gone" or "failing")."""
    COUNT_DISABLE.execute(cursor, {"reason": reason})


def by_reason(db):
    """{reason: endpoints the worker disabled for it}."""
    with db.cursor() as cursor:
        DISABLES.execute(cursor)
        return {row.reason: row.count for row in DISABLES.rows(cursor)}
