"""Every SQL statement the service runs, one module per table."""

import datetime


def utcnow():
    """The current time, in UTC."""
    return datetime.datetime.now(datetime.UTC)
