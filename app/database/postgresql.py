"""PostgreSQL's engine, whose every wait on the server ends within the budget (waits.py): a
module of its own, which drivers.py imports for a PostgreSQL URL only."""

import psycopg
from sqlalchemy import create_engine, event

from .waits import remaining

ACTIVE = psycopg.pq.TransactionStatus.ACTIVE
# psycopg, like libpq, gives a connection attempt at least this many seconds.
CONNECT_FLOOR = 2
# Idle seconds before TCP keepalive probes a PostgreSQL connection, and between probes.
KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT = 10, 5, 3


def create(url, timeout, pool):
    """The engine for a PostgreSQL url, with the pool settings given."""
    connect_args = {
        "keepalives": 1,
        "keepalives_idle": KEEPALIVE_IDLE,
        "keepalives_interval": KEEPALIVE_INTERVAL,
        "keepalives_count": KEEPALIVE_COUNT,
        # A transaction pooler gives each transaction whichever server connection is free: a
        # statement prepared on one is unknown to the next (psycopg prepares after 5 runs).
        "prepare_threshold": None,
        "cursor_factory": UnpipelinedCursor,
    }
    # Pre-ping: a restarted PostgreSQL must not fail the first request after it. Autocommit:
    # the service begins each transaction itself, with its timeouts (begin).
    connect_args["autocommit"] = True
    engine = create_engine(url, pool_pre_ping=True, connect_args=connect_args, **pool)
    _bound_waits(engine, timeout)
    return engine


class BoundedConnection(psycopg.Connection):
    """A psycopg connection that waits for the server only as long as the budget allows.

    statement_timeout is the server's own clock: a server that is stopped, or a network that
    drops packets without a reset, would leave a query waiting for ever without this one.
    """

    wait_timeout = None

    def wait(self, gen, interval=0.1, timeout=None):
        """Consume gen as psycopg does; a server silent for too long closes the connection."""
        try:
            return super().wait(gen, interval, timeout or remaining(self.wait_timeout))
        except psycopg.errors.OperationalError:
            if not self.closed and self.info.transaction_status == ACTIVE:
                # The answer never came: the connection is unusable and must not be pooled.
                self.pgconn.finish()
            raise


class UnpipelinedCursor(psycopg.Cursor):
    """A psycopg cursor whose executemany sends every row's statement in one query, each bound
    by psycopg on the client.

    psycopg's own pipelines them and ends with a Flush after the Sync: a server that reads a
    Flush waits for the next message without arming idle_in_transaction_session_timeout, so a
    process frozen there would hold its locks for ever.
    """

    def executemany(self, query, params_seq, *, returning=False):
        """Run query once for each of params_seq, in one round trip; returning is refused."""
        if returning:
            raise psycopg.NotSupportedError("executemany(returning=True) is not used here")
        binder = psycopg.ClientCursor(self.connection)
        statements = [binder.mogrify(query, params) for params in params_seq]
        if statements:
            self.execute(";\n".join(statements))


def begin(timeout):
    """What starts each transaction of the service, its waits on the server bounded by timeout,
    and the transaction itself too: a process that stops inside it (frozen, cut off) has its
    session ended by the server within timeout, and its locks and snapshot let go. Set in the
    transaction, which a transaction pooler keeps, not in the session, which it shares; one
    round trip, as psycopg's own BEGIN. The connection must be in autocommit, so that psycopg
    sends no BEGIN of its own (Database._use)."""
    milliseconds = int(timeout * 1000)
    return (
        f"BEGIN; SET LOCAL statement_timeout = {milliseconds}; "
        f"SET LOCAL lock_timeout = {milliseconds}; "
        f"SET LOCAL idle_in_transaction_session_timeout = {milliseconds}"
    )


def _bound_waits(engine, timeout):
    @event.listens_for(engine, "do_connect")
    def connect(_dialect, _record, cargs, cparams):
        left = remaining(timeout)
        if left < min(CONNECT_FLOOR, timeout) / 2:
            # Reconnecting after a failed pre-ping: an attempt now could only overrun the budget.
            raise psycopg.errors.ConnectionTimeout("no time left to connect to the database")
        seconds = max(CONNECT_FLOOR, int(left))
        connection = BoundedConnection.connect(*cargs, **cparams, connect_timeout=seconds)
        connection.wait_timeout = timeout
        return connection
