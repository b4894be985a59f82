"""What a run starts: a PostgreSQL server whose clock can be stepped, a streaming replica of it
to fail over to, PgBouncer in front of the primary, two hosts (a gunicorn and a webhook worker
each, both through PgBouncer) and the receivers of the endpoints registered through the API."""

import contextlib
import os
import shutil
import signal

from sqlalchemy.engine import make_url

from harness.chaos.stamped_receivers import ChaosReceiver
from harness.worker import Worker
from support.live_endpoints import ENDPOINT_SETTINGS, Admin, issue_admin_token
from support.live_servers import LiveServer, environment, upgrade
from support.local_servers import POSTGRES_OPTIONS, PostgresTemplate, PrivatePostgres, server_folder
from support.poolers import PgBouncer
from support.replicas import Replica, crash
from support.shifted_clocks import build_clock_shift
from support.tokens import TOKEN

# Seconds every wait on the database is bounded by: a frozen process is found out within it.
DATABASE_TIMEOUT = 2
SETTINGS = {
    **ENDPOINT_SETTINGS,
    "DATABASE_TIMEOUT": DATABASE_TIMEOUT,
    # Retried until the run ends: a receiver that fails for a while still gets every event.
    "WEBHOOK_MAX_ATTEMPTS": 10000,
    "WEBHOOK_RETRY_DELAY": 0.5,
    "WEBHOOK_RETRY_MAX_DELAY": 1,
}
# Each receiver's endpoint: its subscriptions, fixed for the run, and its throttle.
ENDPOINTS = {
    "every": {"events": ["plant.created", "plant.updated", "plant.deleted"]},
    "created": {"events": ["plant.created"], "throttle_rate": 10},
    "changes": {"events": ["plant.updated", "plant.deleted"]},
}


class Stepped:
    """What a PrivatePostgres of a run adds: its processes read their wall clock's shift from
    the run's shift file (``preload``)."""

    # An immediate shutdown must keep what was acknowledged: commits wait for the WAL's write.
    options = POSTGRES_OPTIONS.replace("synchronous_commit=off", "synchronous_commit=on")

    def start(self, env=None):
        """Start the server with the library and its shift file in its environment."""
        super().start({**self.preload, **(env or {})})

    def restart(self, mode):
        """Stop the server with shutdown mode (fast or immediate), and start it again."""
        # Not pg_ctl restart: it would leave the server writing to pg_ctl's output, not its log.
        self._pg_ctl("-m", mode, "-w", "stop")
        self.start()

    def step_clock(self, seconds):
        """Step the server's wall clock to seconds apart from the machine's."""
        self.shift_file.write_text(f"{seconds}\n")


class SteppedPostgres(Stepped, PrivatePostgres):
    """A PrivatePostgres whose processes read their wall clock's shift from a file."""

    def __init__(self, template, library):
        self.shift_file = library.with_name("shift")
        self.shift_file.write_text("0\n")
        self.preload = {"LD_PRELOAD": str(library), "CLOCK_SHIFT_FILE": str(self.shift_file)}
        super().__init__(template)


class SteppedReplica(Stepped, Replica):
    """A streaming replica of a SteppedPostgres (or of a promoted SteppedReplica) whose clock
    follows the same shift file: promoted, it goes on as the primary did."""

    def __init__(self, primary):
        self.shift_file = primary.shift_file
        self.preload = primary.preload
        super().__init__(primary)


class Bouncer(PgBouncer):
    """PgBouncer that can be restarted on its port."""

    def restart(self):
        """Stop PgBouncer at once (every client connection dropped), and start it again."""
        self.process.send_signal(signal.SIGINT)
        self.process.wait(10)
        self._start_on(make_url(self.url).port)

    def repoint(self, server_url):
        """Send every connection to the server of server_url from now on: a restart."""
        self.server = make_url(server_url)
        self.restart()


class Host:
    """One host: a gunicorn and a webhook worker with one environment, their logs in folder."""

    def __init__(self, name, folder, env):
        self.name = name
        folder.mkdir()
        self.server = LiveServer(folder / "gunicorn.log", env, TOKEN)
        self.worker = Worker({**os.environ, **env}, folder)

    def process(self, role):
        """The host's gunicorn or worker, by role."""
        return self.server if role == "gunicorn" else self.worker

    def start(self, roles=("gunicorn", "worker")):
        """Start both, or those of roles; the database is migrated already."""
        if "gunicorn" in roles:
            self.server.start(release=False)
        if "worker" in roles:
            self.worker.start()

    def restart_shifted(self, seconds, library):
        """Restart both with their wall clock seconds apart (0: the machine's)."""
        shift = {"LD_PRELOAD": str(library), "CLOCK_SHIFT_SECONDS": str(seconds)}
        for child, env in ((self.server, self.server.environ), (self.worker, self.worker.env)):
            child.stop()
            for name in shift:
                env.pop(name, None)
            if seconds:
                env.update(shift)
        self.start()

    def stop(self):
        """Kill both, thawed first if frozen."""
        for child in (self.server, self.worker):
            if child.process is not None and child.process.poll() is None:
                os.killpg(child.process.pid, signal.SIGCONT)
                child.kill()


class Topology:
    """Everything a run starts, in folder; close() stops it all."""

    def __init__(self, folder, bin_dir, pgbouncer_program):
        self.folder = folder
        self._stack = contextlib.ExitStack()
        try:
            self._make(folder, bin_dir, pgbouncer_program)
        except BaseException:
            self._stack.close()
            raise

    def _make(self, folder, bin_dir, pgbouncer_program):
        # Where the server's user reads the library and its clock's shift.
        clock = server_folder("plantstore-chaos-clock-")
        self._stack.callback(shutil.rmtree, clock, ignore_errors=True)
        self.library = build_clock_shift(clock)
        template = PostgresTemplate(bin_dir)
        self._stack.callback(template.remove)
        self.postgres = SteppedPostgres(template, self.library)
        self.replica = self.crashed = None
        self._stack.callback(self._destroy_servers)
        self.replica = SteppedReplica(self.postgres)
        self.bouncer = Bouncer(pgbouncer_program, self.postgres.url)
        self._stack.callback(self.bouncer.destroy)
        upgrade(self.bouncer.url)
        env = {
            **environment(SETTINGS),
            "PLANTSTORE_DATABASE_URL": self.bouncer.url,
            "PLANTSTORE_API_TOKENS": TOKEN,
            "WEB_CONCURRENCY": "1",
        }
        self.hosts = [Host(name, folder / name, env) for name in ("a", "b")]
        self.receivers = {name: ChaosReceiver(name) for name in ENDPOINTS}

    def start(self):
        """Start the hosts and register each receiver's endpoint; the endpoints made."""
        for host in self.hosts:
            self._stack.callback(host.stop)
            host.start()
        for receiver in self.receivers.values():
            self._stack.callback(receiver.close)
        admin = Admin(self.hosts[0].server, issue_admin_token(self.bouncer.url))
        return {
            name: admin.register(self.receivers[name].url, **fields)
            for name, fields in ENDPOINTS.items()
        }

    def _destroy_servers(self):
        for server in (self.replica, self.postgres, self.crashed):
            if server is not None:
                server.destroy()

    def crash_primary(self):
        """kill -9 the primary, the replica cut off from it already."""
        self.crashed = self.postgres
        crash(self.crashed)

    def promote(self):
        """Promote the replica to primary and point PgBouncer at it; the hosts go on unchanged."""
        self.replica.promote()
        self.postgres, self.replica = self.replica, None
        self.bouncer.repoint(self.postgres.url)

    def replace_replica(self):
        """Remove the crashed primary's files, and stream a fresh replica from the primary."""
        self.crashed.destroy()
        self.crashed = None
        self.replica = SteppedReplica(self.postgres)

    def close(self):
        """Stop every process and server, and remove their files."""
        self._stack.close()
