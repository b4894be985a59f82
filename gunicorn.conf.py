"""gunicorn settings, read from the working directory by ``gunicorn wsgi:app`` (the Procfile).

The bind address comes from PORT, as a PaaS expects; WEB_CONCURRENCY sets the worker count;
GUNICORN_CMD_ARGS overrides anything here.
"""

import glob
import os
import shutil
import tempfile

# SQLite takes one writer at a time: threads would only queue for its lock, and each waiting
# thread would hold the GIL from the one that has it. One single-threaded worker per core.
# PostgreSQL waits on the network, which threads overlap.
on_postgresql = os.environ.get("PLANTSTORE_DATABASE_URL", "").startswith("postgres")
worker_class = "gthread" if on_postgresql else "sync"
threads = 4 if on_postgresql else 1
# workers: WEB_CONCURRENCY, or one per core; set below, once app.config may be imported.
# gthread keeps a client's connection open between requests (the sync worker closes it); longer
# than a proxy's idle upstream timeout (deploy/nginx.conf: 30 s), so the proxy closes first.
keepalive = 75

accesslog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms request_id=%({x-request-id}o)s pid=%(p)s'

# Which X-Forwarded-* headers to believe is the app's decision (PLANTSTORE_TRUSTED_PROXIES).
forwarded_allow_ips = ""

# Instances sharing a host would fight over gunicorn's one default control socket path.
control_socket_disable = True

# Limits for direct exposure; slow clients are a front's to absorb (docs/deploying.md).
# Longer than a request may wait for the database (PLANTSTORE_DATABASE_TIMEOUT, 10 s by default).
timeout = 30
# Shorter than the 30 s a PaaS waits between SIGTERM and SIGKILL.
graceful_timeout = 20
# gunicorn's largest, so that a request line deploy/nginx.conf lets through reaches the app.
limit_request_line = 8190
# gunicorn's defaults, stated: at most 100 header fields, each at most 8190 bytes.
limit_request_fields = 100
limit_request_field_size = 8190


def post_worker_init(worker):
    """Each worker checks at start its schema's revision and that a token can authenticate."""
    # bench/floor.py runs under these settings too, and is not the service.
    if "plantstore.db" in getattr(worker.wsgi, "extensions", {}):
        from app import check_at_start

        check_at_start(worker.wsgi)


# --- Start-up checks, logs and metrics (operability) ---------------------------------------
# Kept apart from the serving settings above: these run in the master, once per start.

METRICS_DIR_PREFIX = "plantstore-metrics-"
# prometheus_client picks its multiprocess mode when first imported: set the directory before
# anything imports it. One per instance, so that instances sharing a host never add up.
# Named after the master's pid, and only made in on_starting: a refused start leaves nothing.
if "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = os.path.join(
        tempfile.gettempdir(), f"{METRICS_DIR_PREFIX}{os.getpid()}"
    )

from prometheus_client import multiprocess  # noqa: E402 (after the directory is set)

from app import FEATURES  # noqa: E402 (after the directory is set)

# Imported by name: a module-level `config` would be read as gunicorn's own setting.
from app.config import (  # noqa: E402 (after the directory is set)
    ConfigError,
    check_environment,
    check_port,
    worker_count,
)
from app.logs import gunicorn_config  # noqa: E402 (after the directory is set)
from app.ratelimit import per_worker_note  # noqa: E402 (after the directory is set)

# A bad setting stops the master here, in one line. In a worker it was a traceback and "Worker
# failed to boot"; by on_starting, gunicorn has already logged a line of its own.
try:
    plantstore_settings = check_environment(FEATURES)
    check_port()
    workers = worker_count(os.cpu_count() or 1)
except ConfigError as error:
    raise SystemExit(f"Error: {error.format_message()}") from None

logconfig_dict = gunicorn_config(os.environ.get("PLANTSTORE_LOG_FORMAT", "text").lower())


def on_starting(server):
    """Make the metrics directory, or empty it: an earlier run's values must not count.

    Say if rate limits are counted in memory by several workers, each alone.
    """
    directory = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    os.makedirs(directory, mode=0o700, exist_ok=True)
    for path in glob.glob(os.path.join(directory, "*.db")):
        os.remove(path)
    note = per_worker_note(plantstore_settings, server.cfg.workers)
    if note:
        server.log.warning(note)


def child_exit(server, worker):
    """Drop a dead worker's live values (gauges); its counters stay in the sums."""
    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    """Remove the metrics directory if this file made it."""
    directory = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    if os.path.basename(directory).startswith(METRICS_DIR_PREFIX):
        shutil.rmtree(directory, ignore_errors=True)
