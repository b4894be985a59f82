"""The processes `make bench` measures: gunicorn started as the Procfile does, nginx in front.

Each runs as a child of the benchmark with its files in a temporary folder, and is stopped
when its ``with`` block ends.
"""

import collections
import http.client
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Longest wait for a process to serve, or for a run's access log lines to land, in seconds.
TIMEOUT = 30
# gunicorn writes its %(p)s atom as "<pid>"; no space can come from a client's X-Request-ID.
PID = re.compile(rb" pid=<(\d+)>")
# What Debian's /etc/nginx/nginx.conf sets around a site file, with every path in one folder.
NGINX_MAIN = """
{user}
daemon off;
worker_processes auto;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{
    worker_connections 768;
}}
http {{
    sendfile on;
    tcp_nopush on;
    default_type application/octet-stream;
    access_log {dir}/access.log;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/plantstore.conf;
}}
"""


def free_port():
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(condition, timeout, what):
    """Poll condition until it holds; after timeout seconds stop the benchmark, naming what."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up after {timeout} s waiting for {what}")
        time.sleep(0.05)


def answers(port, path, headers):
    """Whether a GET of path on port is answered 200."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path, headers=headers)
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def cpu_ticks(pid):
    """utime + stime of one process (all its threads), in clock ticks; 0 once it is gone."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return 0
    # Fields after the command name, which may hold spaces, start at field 3 (state).
    fields = stat.rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])


class Gunicorn:
    """`gunicorn APP` from the project root, as the Procfile's web line, on its own port.

    Nothing about workers, threads or logging is given on the command line: gunicorn.conf.py
    decides. The access log goes to stdout, as deployed, and stdout goes to a file.
    """

    def __init__(self, app, env, folder):
        self.app = app
        self.port = free_port()
        self.env = {**env, "PORT": str(self.port)}
        self.access_log = folder / "access.log"
        self.error_log = folder / "error.log"
        self.folder = folder
        self.process = None

    def settings(self):
        """What gunicorn.conf.py chose in this environment (gunicorn --print-config)."""
        # --print-config also loads the app, whose metrics need an existing directory: the
        # one gunicorn.conf.py names is only made when gunicorn starts serving.
        metrics = self.folder / "print-config-metrics"
        metrics.mkdir(exist_ok=True)
        output = subprocess.run(
            [self._gunicorn(), "--print-config", self.app],
            cwd=ROOT,
            env={**self.env, "PROMETHEUS_MULTIPROC_DIR": str(metrics)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        pairs = (line.split(" = ", 1) for line in output.splitlines() if " = " in line)
        return {name.strip(): value.strip() for name, value in pairs}

    def _gunicorn(self):
        # The venv's gunicorn, the one `gunicorn wsgi:app` finds on a deployed PATH.
        return str(pathlib.Path(sys.executable).with_name("gunicorn"))

    def __enter__(self):
        with open(self.access_log, "wb") as stdout, open(self.error_log, "wb") as stderr:
            self.process = subprocess.Popen(
                [self._gunicorn(), self.app],
                cwd=ROOT,
                env=self.env,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
            )
        return self

    def wait_ready(self, path, headers):
        """Wait until the app answers path with 200."""

        def ready():
            if self.process.poll() is not None:
                raise SystemExit(f"{self.app} exited:\n{self.error_log.read_text()}")
            return answers(self.port, path, headers)

        wait_until(ready, TIMEOUT, f"{self.app} to answer {path}")

    def pids(self):
        """The master and its current workers."""
        master = self.process.pid
        children = pathlib.Path(f"/proc/{master}/task/{master}/children").read_text()
        return [master, *map(int, children.split())]

    def cpu_ticks(self):
        """CPU time used so far by the master and every worker, in clock ticks."""
        return sum(cpu_ticks(pid) for pid in self.pids())

    def peak_rss_mib(self):
        """The largest peak resident size (VmHWM) of any current worker, in MiB."""
        peaks = [0]
        for pid in self.pids()[1:]:
            status = pathlib.Path(f"/proc/{pid}/status").read_text()
            peaks += [
                int(line.split()[1]) / 1024
                for line in status.splitlines()
                if line.startswith("VmHWM:")
            ]
        return max(peaks)

    def log_offset(self):
        """Where the next access log line will start."""
        return self.access_log.stat().st_size

    def requests_by_worker(self, offset, at_least):
        """Access log lines written since offset, counted per worker pid; waits (bounded) until
        at least that many have been written, since a line follows its response."""

        def counts():
            with open(self.access_log, "rb") as log:
                log.seek(offset)
                return collections.Counter(int(match[1]) for match in map(PID.search, log) if match)

        wait_until(
            lambda: counts().total() >= at_least,
            TIMEOUT,
            f"{at_least} access log lines with pid= from {self.app}",
        )
        return counts()

    def __exit__(self, *exc_info):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def nginx_binary():
    """Where nginx is installed, or None."""
    # Debian installs it in /usr/sbin, which a user's PATH may lack.
    return shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin")


def render_site(port, upstream_port):
    """deploy/nginx.conf listening on port, with one upstream instance on upstream_port."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    server = f"    server 127.0.0.1:{upstream_port};\n"
    site, count = re.subn(r"(    server 127\.0\.0\.1:\d+;\n)+", server, site)
    if count != 1:
        raise SystemExit("deploy/nginx.conf no longer has the upstream lines the bench replaces")
    return site


class Nginx:
    """nginx, not daemonised, serving deploy/nginx.conf in front of one gunicorn."""

    def __init__(self, upstream_port, folder):
        self.port = free_port()
        self.folder = folder
        folder.mkdir()
        (folder / "plantstore.conf").write_text(render_site(self.port, upstream_port))
        user = "user root;" if os.geteuid() == 0 else ""
        (folder / "nginx.conf").write_text(NGINX_MAIN.format(dir=folder, user=user))
        self.process = None

    def __enter__(self):
        conf = str(self.folder / "nginx.conf")
        error_log = str(self.folder / "error.log")
        command = [nginx_binary(), "-p", str(self.folder), "-e", error_log, "-c", conf]
        self.process = subprocess.Popen(command, start_new_session=True)
        return self

    def wait_ready(self, path, headers):
        """Wait until a request for path passes through nginx to its upstream."""

        def ready():
            if self.process.poll() is not None:
                raise SystemExit(f"nginx exited:\n{(self.folder / 'error.log').read_text()}")
            return answers(self.port, path, headers)

        wait_until(ready, TIMEOUT, f"nginx to answer {path}")

    def __exit__(self, *exc_info):
        self.process.terminate()
        self.process.wait(timeout=30)
