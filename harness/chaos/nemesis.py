"""The faults a run injects, picked and timed by random.Random(seed), each healed before the
next begins; every one is printed and kept with its start and heal times."""

import os
import random
import signal
import time

# Seconds a fault is held, and the calm between two.
HOLD = (4, 10)
CALM = (1, 3)
# How far a host's clock, or the database's, is put apart.
SHIFT = 60
# Seconds the primary takes commits alone, cut off from its replica, before it is lost.
ALONE = (0.5, 2)
FAULTS = (
    "freeze",
    "kill",
    "host-clock",
    "postgres-restart",
    "postgres-clock",
    "pgbouncer-restart",
    "receiver-fails",
    "receiver-hangs",
    "failover",
)


class Nemesis:
    """Injects faults into a Topology; ``faults`` holds each as a dict (name, target, start,
    healed, kind: its FAULTS entry; a failover's cut, crashed and promoted times too)."""

    def __init__(self, topology, seed, say=print):
        self.topology = topology
        self.rng = random.Random(f"{seed}-nemesis")
        self.say = say
        self.faults = []

    def run(self, duration):
        """Inject faults one after another for duration seconds, then return, every one healed."""
        end = time.time() + duration
        while time.time() < end:
            kind = self.rng.choice(FAULTS)
            hold = min(self.rng.uniform(*HOLD), max(end - time.time(), 1))
            fault = {"kind": kind, "start": time.time()}
            heal = getattr(self, "_" + kind.replace("-", "_"))(fault)
            self.say(f"{fault['start']:.3f} fault {kind} {fault['target']} begins")
            time.sleep(hold)  # the fault is held, not waited on
            heal()
            fault["healed"] = time.time()
            self.faults.append(fault)
            self.say(f"{fault['healed']:.3f} fault {kind} {fault['target']} healed")
            time.sleep(self.rng.uniform(*CALM))

    def _process(self, fault):
        host = self.rng.choice(self.topology.hosts)
        role = self.rng.choice(("gunicorn", "worker"))
        fault["target"] = f"{role} of host {host.name}"
        return host, role

    def _freeze(self, fault):
        host, role = self._process(fault)
        group = host.process(role).process.pid
        os.killpg(group, signal.SIGSTOP)
        return lambda: os.killpg(group, signal.SIGCONT)

    def _kill(self, fault):
        host, role = self._process(fault)
        host.process(role).kill()
        return lambda: host.start([role])

    def _host_clock(self, fault):
        host = self.rng.choice(self.topology.hosts)
        shift = self.rng.choice((-SHIFT, SHIFT))
        fault["target"] = f"host {host.name} {shift:+d} s"
        host.restart_shifted(shift, self.topology.library)
        return lambda: host.restart_shifted(0, self.topology.library)

    def _postgres_restart(self, fault):
        mode = self.rng.choice(("fast", "immediate"))
        fault["target"] = f"-m {mode}"
        # PgBouncer refuses logins for server_login_retry (15 s) after one failed.
        fault["settle"] = 15
        self.topology.postgres.restart(mode)
        return lambda: None

    def _postgres_clock(self, fault):
        shift = self.rng.uniform(-SHIFT, SHIFT)
        fault["target"], fault["step"] = f"{shift:+.1f} s", shift
        self.topology.postgres.step_clock(shift)
        return lambda: self.topology.postgres.step_clock(0)

    def _pgbouncer_restart(self, fault):
        fault["target"] = "in front of PostgreSQL"
        self.topology.bouncer.restart()
        return lambda: None

    def _receiver(self, fault):
        name = self.rng.choice(sorted(self.topology.receivers))
        fault["target"] = f"receiver {name}"
        return self.topology.receivers[name]

    def _receiver_fails(self, fault):
        receiver = self._receiver(fault)
        receiver.fail()
        return receiver.answer

    def _receiver_hangs(self, fault):
        receiver = self._receiver(fault)
        receiver.hang(self.rng.uniform(2, 5))
        return receiver.answer

    def _failover(self, fault):
        topology = self.topology
        fault["target"] = f"port {topology.postgres.port} to port {topology.replica.port}"
        # Whatever was acknowledged before this is on the replica once it has caught up.
        fault["cut"] = time.time()
        topology.replica.wait_caught_up()
        topology.replica.cut()
        time.sleep(self.rng.uniform(*ALONE))  # held: what the primary commits now is lost
        topology.crash_primary()
        fault["crashed"] = time.time()
        topology.promote()
        fault["promoted"] = time.time()
        return topology.replace_replica
