"""The webhook_disables table: endpoints the worker disabled, by reason, a counter of /metrics."""

from sqlalchemy import BigInteger, Column, String, Table

from ...database import driver_sql, metadata

# Endpoints the worker disabled, by reason, since the database was made: a counter of /metrics
# that every host's worker adds to.
webhook_disables = Table(
    "webhook_disables",
    metadata,
    Column("reason", String(20), primary_key=True),
    Column("count", BigInteger, nullable=False),
)
COUNT_DISABLE = driver_sql(
    "INSERT INTO webhook_disables (reason, count) VALUES (:reason, 1) "
    "ON CONFLICT (reason) DO UPDATE SET count = webhook_disables.count + 1"
)
DISABLES = driver_sql("SELECT reason, count FROM webhook_disables")


def count_disable(db, cursor, reason):
    """Count one endpoint disabled by the worker for reason ("gone" or "failing")."""
    cursor.execute(COUNT_DISABLE[db.dialect], {"reason": reason})


def by_reason(db):
    """{reason: endpoints the worker disabled for it}."""
    with db.cursor() as cursor:
        cursor.execute(DISABLES[db.dialect])
        return dict(cursor.fetchall())
