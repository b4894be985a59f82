"""gunicorn settings, read from the working directory by ``gunicorn wsgi:app`` (the Procfile).

Bind address and worker count are left to gunicorn, which takes them from PORT and
WEB_CONCURRENCY, as a PaaS expects.
"""

accesslog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms request_id=%({x-request-id}o)s'

# Which X-Forwarded-* headers to believe is the app's decision (PLANTSTORE_TRUSTED_PROXIES).
forwarded_allow_ips = ""

# Instances sharing a host would fight over gunicorn's one default control socket path.
control_socket_disable = True
