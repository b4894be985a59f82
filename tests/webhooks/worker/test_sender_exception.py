"""An attempt whose sender raises what nobody expected: its outcome is recorded all the same."""

import logging
import time

import pytest

from app.webhooks.worker.sender import Sender
from harness.processes import wait_for
from support.in_process import running
from support.webhooks import create, settled, status_of


class Unforeseen(Exception):
    """What the sender raises for the broken receiver."""


# The fault is the sender's, not the database's: SQLite alone.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_exception_of_the_sender_is_an_outcome_retried_on_schedule(
    make_app, hooked_settings, receiver, monkeypatch, caplog
):
    broken = "http://127.0.0.1:9/broken"
    app = make_app(**{**hooked_settings, "WEBHOOK_URLS": f"{receiver.url},{broken}"})
    send = Sender.send

    async def send_or_raise(self, target, *args):
        # The seam: the fault cannot be made over HTTP.
        if target.url == broken:
            raise Unforeseen("the sender failed")
        return await send(self, target, *args)

    monkeypatch.setattr(Sender, "send", send_or_raise)
    caplog.set_level(logging.INFO, logger=app.logger.name)
    cli = app.test_cli_runner()
    with running(app):
        created = time.monotonic()
        assert create(app.test_client(), 1).status_code == 200
        wait_for(lambda: settled(cli, delivered=1, failed=1), 30, lambda: status_of(cli))
        # On the schedule (0.05 to 0.2 s apart), not after a lease of 17 s.
        assert time.monotonic() - created < 5
    assert "after 3 attempts: Unforeseen" in status_of(cli)
    raised = [record for record in caplog.records if record.exc_info]
    assert [record.exc_info[0] for record in raised] == [Unforeseen] * 3
    assert len(receiver.requests) == 1
