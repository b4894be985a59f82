"""The endpoints' change serial: a one-row table whose serial every write of a column a worker
reads of webhook_endpoints moves on (a throttled endpoint's schedule does not), by triggers the
migrations make (revision a6c2e8f0b4d7), in the writing transaction. A worker keeps what it
read of the endpoints while the serial stays, and reads them again once it moves: a round reads
one row, not every endpoint."""

from sqlalchemy import BigInteger, Column, Integer, Table, select

from ....database import Now, Statement, metadata

webhook_endpoint_changes = Table(
    "webhook_endpoint_changes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("serial", BigInteger, nullable=False),
)
# The serial (None while its row is missing: the next change makes it), and the database's
# clock, which says whether a kept secret's overlap has ended.
SERIAL = Statement(
    select(
        select(webhook_endpoint_changes.c.serial).scalar_subquery().label("serial"),
        Now().label("now"),
    ),
    "Changes",
)


def read(cursor):
    """(the endpoints' change serial, the database's time now), in the cursor's transaction:
    a serial read after another sees every endpoint change that committed before it."""
    SERIAL.execute(cursor)
    return SERIAL.row(cursor)
