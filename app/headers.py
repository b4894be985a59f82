"""Request headers we believe, and headers every response carries."""

import os
import re

from flask import Response, request, url_for
from werkzeug.middleware.proxy_fix import ProxyFix

# A client's id is echoed only if it cannot smuggle anything into a header or a log line.
SANE_REQUEST_ID = re.compile(r"[\x21-\x7e]{1,200}")
REQUEST_ID = "plantstore.request_id"
# Where the app keeps the URL prefixes that blueprints asked no-store for, until it is wrapped.
NO_STORE = "plantstore.no_store"


class ResponseHeaders:
    """WSGI middleware: give each request its id, and every response the contract's headers.

    Outside Flask, so that every response has them, whatever made it (a routing 404 or 405
    included), at a small fraction of what a before/after_request pair costs.
    """

    def __init__(self, app, no_store=()):
        self.app = app
        # URL prefixes whose answers no cache may keep, as blueprints ask with no_store().
        self.no_store = no_store

    def __call__(self, environ, start_response):
        """Serve the request with its id in environ, adding the headers to the answer."""
        given = environ.get("HTTP_X_REQUEST_ID", "")
        request_id = given if SANE_REQUEST_ID.fullmatch(given) else os.urandom(16).hex()
        environ[REQUEST_ID] = request_id
        extra = [("X-Request-ID", request_id), ("X-Content-Type-Options", "nosniff")]
        path = environ.get("PATH_INFO", "")
        for prefix in self.no_store:
            if path == prefix or path.startswith(prefix + "/"):
                extra.append(("Cache-Control", "no-store"))

        def start_with_headers(status, headers, exc_info=None):
            return start_response(status, headers + extra, exc_info)

        return self.app(environ, start_with_headers)


def request_id():
    """The current request's id (the client's X-Request-ID when sane), for log lines."""
    return request.environ.get(REQUEST_ID)


def no_content(status):
    """An answer of status without a body, and so without a Content-Type."""
    response = Response(status=status)
    del response.headers["Content-Type"]
    return response


def next_page(endpoint, **query):
    """The Link header of a page that more follow: the URL of endpoint with query, rel="next"."""
    return {"Link": f'<{url_for(endpoint, **query, _external=True)}>; rel="next"'}


def no_store(app, prefix):
    """Mark every answer under the URL prefix (a blueprint's url_prefix) Cache-Control: no-store."""
    app.extensions.setdefault(NO_STORE, []).append(prefix)


def middleware(app, wsgi_app):
    """wsgi_app, with a request id and the contract's headers on every answer."""
    return ResponseHeaders(wsgi_app, tuple(app.extensions.get(NO_STORE, ())))


def trusted_proxies(app, wsgi_app):
    """wsgi_app, believing X-Forwarded-* only from PLANTSTORE_TRUSTED_PROXIES proxies."""
    proxies = app.config["TRUSTED_PROXIES"]
    if not proxies:
        return wsgi_app
    return ProxyFix(
        wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_port=proxies, x_prefix=proxies
    )
