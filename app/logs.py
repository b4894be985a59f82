"""Log lines in text or JSON (PLANTSTORE_LOG_FORMAT): app, gunicorn, webhook worker and CLI."""

import datetime
import logging
import sys
from collections.abc import Mapping

from flask import has_request_context
from pythonjsonlogger.json import JsonFormatter

from .headers import request_id

TEXT_FORMAT = "%(asctime)s %(levelname)s [%(process)d] %(name)s: %(message)s"
ACCESS_TEXT_FORMAT = "%(asctime)s %(message)s"
JSON_FIELDS = ("asctime", "levelname", "name", "message")
JSON_NAMES = {"asctime": "time", "levelname": "level", "name": "logger"}


def _rfc3339(record):
    moment = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TextFormatter(logging.Formatter):
    """Text lines stamped with an RFC 3339 UTC time."""

    def formatTime(self, record, datefmt=None):
        """The record's time in RFC 3339, UTC."""
        return _rfc3339(record)


class JsonLineFormatter(JsonFormatter):
    """One JSON object per line: time, level, logger, message, and the record's extra fields."""

    def __init__(self):
        super().__init__(JSON_FIELDS, rename_fields=JSON_NAMES)

    def formatTime(self, record, datefmt=None):
        """The record's time in RFC 3339, UTC."""
        return _rfc3339(record)


class RequestId(logging.Filter):
    """Adds request_id to a line logged while a request is handled."""

    def filter(self, record):
        """Attach the request id, when there is a request."""
        if has_request_context():
            record.request_id = request_id()
        return True


class AccessFields(logging.Filter):
    """Turns gunicorn's access-log atoms into fields (never a header other than the request id)."""

    def filter(self, record):
        """Attach method, path, status, bytes, duration_ms, remote_addr and request_id."""
        atoms = record.args
        if isinstance(atoms, Mapping):
            query = atoms["q"]
            record.method = atoms["m"]
            record.path = f"{atoms['U']}?{query}" if query else atoms["U"]
            record.status = int(atoms["s"])
            record.bytes = atoms["B"] or 0
            record.duration_ms = atoms["D"] / 1000
            record.remote_addr = atoms["h"]
            record.request_id = atoms["{x-request-id}o"]
        return True


class StderrHandler(logging.StreamHandler):
    """Writes to sys.stderr as it is at each line: pytest and click's test runner replace it."""

    @property
    def stream(self):
        """The current sys.stderr."""
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass  # always the current sys.stderr


def formatter(log_format, access=False):
    """The formatter of log_format ("text" or "json"); access lines keep gunicorn's own text."""
    if log_format == "json":
        return JsonLineFormatter()
    return TextFormatter(ACCESS_TEXT_FORMAT if access else TEXT_FORMAT)


def gunicorn_config(log_format):
    """gunicorn's logconfig_dict: its error and access logs in log_format; the root is the app's."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "root": {"level": "WARNING", "handlers": []},
        "loggers": {
            "gunicorn.error": {"handlers": ["error"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["access"], "propagate": False},
        },
        "filters": {"access": {"()": AccessFields}},
        "formatters": {
            "error": {"()": formatter, "log_format": log_format},
            "access": {"()": formatter, "log_format": log_format, "access": True},
        },
        "handlers": {
            "error": {"class": "logging.StreamHandler", "formatter": "error"},
            "access": {
                "class": "logging.StreamHandler",
                "formatter": "access",
                "filters": ["access"],
                "stream": "ext://sys.stdout",
            },
        },
    }


def init_app(app):
    """Send every log line of this process to standard error in the configured format."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, StderrHandler)]:
        root.removeHandler(handler)  # an earlier app's, in the same process
    handler = StderrHandler()
    handler.setFormatter(formatter(app.config["LOG_FORMAT"]))
    handler.addFilter(RequestId())
    root.addHandler(handler)
    # The app's own lines at INFO (webhook attempts, start-up notes); libraries stay at WARNING.
    app.logger.setLevel(logging.INFO)
