"""What `make bench` reads from the gunicorn it measures: CPU, memory, the settings it chose, and
which worker served each request.

The processes themselves are the harness's: gunicorn started as the Procfile does, nginx in
front; each runs as a child of the benchmark with its files in a temporary folder.
"""

import collections
import pathlib
import re
import subprocess

from harness import gunicorn
from harness.processes import ROOT, children, cpu_ticks, wait_for

# Longest wait for a run's access log lines to land, in seconds.
LOG_TIMEOUT = 30
# gunicorn writes its %(p)s atom as "<pid>"; no space can come from a client's X-Request-ID.
PID = re.compile(rb" pid=<(\d+)>")


def family_ticks(pid):
    """cpu_ticks of a process and of its current children."""
    return sum(cpu_ticks(member) for member in [pid, *children(pid)])


class Gunicorn(gunicorn.Gunicorn):
    """`gunicorn APP` with its access log (stdout) and error log (stderr) in folder."""

    def __init__(self, app, env, folder):
        super().__init__(env, folder / "access.log", app=app, error_path=folder / "error.log")
        self.folder = folder

    def settings(self):
        """What gunicorn.conf.py chose in this environment (gunicorn --print-config)."""
        # --print-config also loads the app, whose metrics need an existing directory: the
        # one gunicorn.conf.py names is only made when gunicorn starts serving.
        metrics = self.folder / "print-config-metrics"
        metrics.mkdir(exist_ok=True)
        output = subprocess.run(
            [gunicorn.executable(), "--print-config", self.app],
            cwd=ROOT,
            env={**self.environ, "PROMETHEUS_MULTIPROC_DIR": str(metrics)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        pairs = (line.split(" = ", 1) for line in output.splitlines() if " = " in line)
        return {name.strip(): value.strip() for name, value in pairs}

    def cpu_ticks(self):
        """CPU time used so far by the master and every worker, in clock ticks."""
        return family_ticks(self.process.pid)

    def peak_rss_mib(self):
        """The largest peak resident size (VmHWM) of any current worker, in MiB."""
        peaks = [0]
        for pid in children(self.process.pid):
            status = pathlib.Path(f"/proc/{pid}/status").read_text()
            peaks += [
                int(line.split()[1]) / 1024
                for line in status.splitlines()
                if line.startswith("VmHWM:")
            ]
        return max(peaks)

    def log_offset(self):
        """Where the next access log line will start."""
        return self.log_path.stat().st_size

    def requests_by_worker(self, offset, at_least):
        """Access log lines written since offset, counted per worker pid; waits (bounded) until
        at least that many have been written, since a line follows its response."""

        def counts():
            with open(self.log_path, "rb") as log:
                log.seek(offset)
                return collections.Counter(int(match[1]) for match in map(PID.search, log) if match)

        wait_for(
            lambda: counts().total() >= at_least,
            LOG_TIMEOUT,
            f"{at_least} access log lines with pid= from {self.app}",
        )
        return counts()
