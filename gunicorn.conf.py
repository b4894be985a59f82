"""gunicorn settings, read from the working directory by ``gunicorn wsgi:app`` (the Procfile).

Bind address and worker count are left to gunicorn, which takes them from PORT and
WEB_CONCURRENCY, as a PaaS expects; GUNICORN_CMD_ARGS overrides anything here.
"""

# Threads give persistent connections (a proxy's upstream keep-alive, a client's reuse),
# which the sync worker closes after every request.
worker_class = "gthread"
threads = 4
# Longer than a proxy's idle upstream timeout (deploy/nginx.conf: 30 s), so the proxy closes
# first and never sends a request on a connection gunicorn has just dropped.
keepalive = 75

accesslog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms request_id=%({x-request-id}o)s'

# Which X-Forwarded-* headers to believe is the app's decision (PLANTSTORE_TRUSTED_PROXIES).
forwarded_allow_ips = ""

# Instances sharing a host would fight over gunicorn's one default control socket path.
control_socket_disable = True
