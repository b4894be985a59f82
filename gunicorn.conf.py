"""gunicorn settings, read from the working directory by ``gunicorn wsgi:app`` (the Procfile).

The bind address comes from PORT, as a PaaS expects; WEB_CONCURRENCY sets the worker count;
GUNICORN_CMD_ARGS overrides anything here.
"""

import os

# SQLite takes one writer at a time: threads would only queue for its lock, and each waiting
# thread would hold the GIL from the one that has it. One single-threaded worker per core.
# PostgreSQL waits on the network, which threads overlap.
on_postgresql = os.environ.get("PLANTSTORE_DATABASE_URL", "").startswith("postgres")
worker_class = "gthread" if on_postgresql else "sync"
threads = 4 if on_postgresql else 1
workers = int(os.environ.get("WEB_CONCURRENCY", os.cpu_count() or 1))
# gthread keeps a client's connection open between requests (the sync worker closes it); longer
# than a proxy's idle upstream timeout (deploy/nginx.conf: 30 s), so the proxy closes first.
keepalive = 75

accesslog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms request_id=%({x-request-id}o)s pid=%(p)s'

# Which X-Forwarded-* headers to believe is the app's decision (PLANTSTORE_TRUSTED_PROXIES).
forwarded_allow_ips = ""

# Instances sharing a host would fight over gunicorn's one default control socket path.
control_socket_disable = True

# Limits for direct exposure; slow clients are a front's to absorb (README, "Deploying").
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
    """Each worker checks at start that the database schema is the code's migrations' head."""
    # bench/floor.py runs under these settings too, and has no schema.
    schema = getattr(worker.wsgi, "extensions", {}).get("plantstore.schema")
    if schema is not None:
        schema.check_at_start()
