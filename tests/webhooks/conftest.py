"""Fixtures of the webhook tests: a verifying receiver, settings that use it, apps and servers."""

import pytest

from liveserver import environment
from receiver import Receiver
from webhook_helpers import SECRET


@pytest.fixture
def receiver():
    """A subscriber listening on a local port; every delivery it got must verify."""
    server = Receiver(SECRET)
    yield server
    server.close()
    assert server.unverified == []


@pytest.fixture
def hooked_settings(receiver):
    """Settings that send every event to the receiver, retrying fast."""
    return {
        "WEBHOOK_URLS": receiver.url,
        "WEBHOOK_SECRET": SECRET,
        "WEBHOOK_MAX_ATTEMPTS": 3,
        "WEBHOOK_RETRY_DELAY": 0.05,
        "WEBHOOK_RETRY_MAX_DELAY": 0.2,
        "WEBHOOK_TIMEOUT": 1,
        "WEBHOOK_POLL_INTERVAL": 0.05,
        "WEBHOOK_RECEIVER_CONCURRENCY": 2,
    }


@pytest.fixture
def hooked(make_app, hooked_settings):
    """An app with webhooks on, its client, and its CLI."""
    app = make_app(**hooked_settings)
    return app, app.test_client(), app.test_cli_runner()


@pytest.fixture
def hooked_server(live_server, database_url, hooked_settings, start_workers):
    """gunicorn with webhooks on, and a way to start `flask webhooks run` workers beside it."""
    server = live_server(database_url, **environment(hooked_settings))
    return server, lambda: start_workers(server.env)[0]
