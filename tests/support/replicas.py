"""A physical streaming replica of a PrivatePostgres, which a test may cut off and promote: a
failover whose lost transactions are known.

initdb's trust authentication lets replication connections in from the local socket and
127.0.0.1, and PostgreSQL's defaults (wal_level replica, max_wal_senders 10) let them stream.
"""

import contextlib
import os
import pathlib
import signal

import psycopg

from harness.processes import wait_for
from support.local_servers import PrivatePostgres, _as_server_user, on_a_free_port, server_folder

# Longest wait, in seconds, for a replay, a cut or a promotion.
REPLICA_TIMEOUT = 30


def query(server, sql, *params):
    """Run sql on server in a session of its own; the first column of its first row, None for
    a statement that returns none."""
    conninfo = f"host=127.0.0.1 port={server.port} user=postgres dbname=postgres"
    with psycopg.connect(conninfo, autocommit=True, connect_timeout=5) as conn:
        cursor = conn.execute(sql, params)
        return cursor.fetchone()[0] if cursor.description else None


def crash(server):
    """kill -9 server's postmaster and every backend, as a host's loss does; start() starts it
    again with crash recovery."""
    pids = server._processes()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    wait_for(
        lambda: not any(pathlib.Path(f"/proc/{pid}").exists() for pid in pids),
        REPLICA_TIMEOUT,
        "the killed PostgreSQL's processes to end",
    )
    # A dead postmaster's pid file would have destroy() signal it.
    (server.dir / "data" / "postmaster.pid").unlink()


class Replica(PrivatePostgres):
    """A hot standby streaming from primary (a PrivatePostgres) on a free port of its own,
    made by pg_basebackup; ``url`` in PrivatePostgres's form. destroy() stops and removes it."""

    def __init__(self, primary):
        self.primary = primary
        self.bin_dir = primary.bin_dir
        self.dir = server_folder("plantstore-pg-replica-")
        source = ["-h", "127.0.0.1", "-p", primary.port, "-U", "postgres"]
        # -R writes primary_conninfo and standby.signal; -X stream copies the WAL it needs; a
        # fast checkpoint, or the backup waits out a spread one (a promotion's lasts seconds).
        backup = [*source, "-D", "data", "-R", "-X", "stream", "--no-sync", "-c", "fast"]
        _as_server_user([self.bin_dir / "pg_basebackup", *backup], self.dir)
        self.port = on_a_free_port(self._start_on, RuntimeError)
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def in_recovery(self):
        """Whether the server is still a standby."""
        return query(self, "SELECT pg_is_in_recovery()")

    def wait_caught_up(self):
        """Wait until this standby has replayed everything the primary has written so far."""
        # Where WAL is inserted, not written: the suite's servers commit without waiting for
        # the write (synchronous_commit = off), which would let a commit's record come after.
        target = query(self.primary, "SELECT pg_current_wal_insert_lsn()::text")
        sql = "SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), %s::pg_lsn) >= 0"
        wait_for(lambda: query(self, sql, target), REPLICA_TIMEOUT, f"replay up to {target}")

    def cut(self):
        """Stop streaming from the primary: whatever it commits from now on is lost here."""
        query(self, "ALTER SYSTEM SET primary_conninfo = ''")
        query(self, "SELECT pg_reload_conf()")
        wait_for(
            lambda: query(self, "SELECT count(*) FROM pg_stat_wal_receiver") == 0,
            REPLICA_TIMEOUT,
            "the standby's WAL receiver to stop",
        )

    def promote(self):
        """Make this standby a primary that takes writes; return once it does."""
        self._pg_ctl("-w", "-t", REPLICA_TIMEOUT, "promote")
        wait_for(lambda: not self.in_recovery(), REPLICA_TIMEOUT, "the promotion to end")
