"""`make bench-scale` on PostgreSQL: the shared buffers (hit and read) of the statements the
service sent during each operation, and their execution time, by pg_stat_statements.

A throwaway server of the bench's own (tests/support/local_servers.py's, with the extension
preloaded), a database per size; each operation is warmed up once, then run REPEATS times, the
statistics reset before each run and summed over the size's database after it: the median
run's figures.
"""

import os
import statistics

from sqlalchemy import create_engine, make_url, text

from bench.scale_callgrind import label
from bench.scale_fill import fill
from bench.scale_service import OTHER, ROUNDS, ROWS, SUBSCRIBED, Service, warm_up
from support.local_servers import (
    POSTGRES_OPTIONS,
    PostgresTemplate,
    PrivatePostgres,
    has_server_user,
    postgres_bin_dir,
)

REPEATS = int(os.environ.get("BENCH_SCALE_REPEATS", "5"))
RESET = "SELECT pg_stat_statements_reset()"
# What the statements run in the database named :name cost, from the last reset on.
SPENT = """SELECT coalesce(sum(shared_blks_hit + shared_blks_read), 0) AS buffers,
  coalesce(sum(total_exec_time), 0) AS ms
FROM pg_stat_statements JOIN pg_database ON pg_database.oid = dbid
WHERE datname = :name"""


class StatisticsPostgres(PrivatePostgres):
    """A PrivatePostgres that keeps pg_stat_statements' statistics of top-level statements."""

    options = f"{POSTGRES_OPTIONS} -c shared_preload_libraries=pg_stat_statements"


def missing():
    """Why PostgreSQL cannot be measured here, or None when it can."""
    if postgres_bin_dir() is None or (os.geteuid() == 0 and not has_server_user()):
        return "PostgreSQL's server binaries are missing (Debian package postgresql)"
    return None


class Server:
    """The bench's own PostgreSQL server, with a database per size, and a connection to its
    postgres database that reads the statistics (its own statements are in no size's)."""

    def __init__(self):
        self.template = PostgresTemplate(postgres_bin_dir())
        self.server = StatisticsPostgres(self.template)
        self.engine = create_engine(self.server.url, isolation_level="AUTOCOMMIT")
        with self.engine.connect() as conn:
            conn.exec_driver_sql("CREATE EXTENSION pg_stat_statements")

    def database(self, name):
        """The URL of a new, empty database called name."""
        with self.engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        url = make_url(self.server.url).set(database=name)
        return url.render_as_string(hide_password=False)

    def spent(self, name, call):
        """(shared buffers, milliseconds) of the statements run in the database name by call()."""
        with self.engine.connect() as conn:
            conn.exec_driver_sql(RESET)
            call()
            row = conn.execute(text(SPENT), {"name": name}).one()
        return int(row.buffers), float(row.ms)

    def close(self):
        """Stop the server and remove its files."""
        self.engine.dispose()
        self.server.destroy()
        self.template.remove()


def _median_run(server, dbname, service, operation):
    warm_up(service, operation)
    runs = []
    for _ in range(REPEATS):
        call = operation(service)
        runs.append(server.spent(dbname, call))
        service.settle()
    buffers = statistics.median(run[0] for run in runs)
    return buffers, statistics.median(run[1] for run in runs)


def measure(server, n, endpoints):
    """The fill's seconds and {operation: (buffers, ms)} at n rows, in a database of its own."""
    dbname = f"scale_{n}"
    url = server.database(dbname)
    service = Service(url, endpoints)
    service.init_db()
    seconds = fill(url, n)
    service.register(1, [SUBSCRIBED])
    service.start_worker()
    figures = {}
    for each, operation in ROWS.items():
        figures[each] = _median_run(server, dbname, service, operation)
    for each, operation in ROUNDS.items():
        figures[label(each, 1)] = _median_run(server, dbname, service, operation)
    service.register(endpoints - 1, [OTHER])
    for each, operation in ROUNDS.items():
        figures[label(each, endpoints)] = _median_run(server, dbname, service, operation)
    service.close()
    return seconds, figures
