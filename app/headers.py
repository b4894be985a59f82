"""Request headers we believe, and headers every response carries."""

import os
import re

from flask import g, request
from werkzeug.middleware.proxy_fix import ProxyFix

# A client's id is echoed only if it cannot smuggle anything into a header or a log line.
SANE_REQUEST_ID = re.compile(r"[\x21-\x7e]{1,200}")


def assign_request_id():
    """Take the client's X-Request-ID when sane, else make one."""
    given = request.headers.get("X-Request-ID", "")
    g.request_id = given if SANE_REQUEST_ID.fullmatch(given) else os.urandom(16).hex()


def add_headers(response):
    """Add the headers of the contract's 'Every response' section."""
    response.headers["X-Request-ID"] = g.request_id
    response.headers["X-Content-Type-Options"] = "nosniff"
    if request.path == "/plants" or request.path.startswith("/plants/"):
        response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app):
    """Believe X-Forwarded-* only from trusted proxies, and register the hooks."""
    proxies = app.config["TRUSTED_PROXIES"]
    if proxies:
        app.wsgi_app = ProxyFix(
            app.wsgi_app,
            x_for=proxies,
            x_proto=proxies,
            x_host=proxies,
            x_port=proxies,
            x_prefix=proxies,
        )
    app.before_request(assign_request_id)
    app.after_request(add_headers)
