"""A frozen process holds up nobody (PostgreSQL): a process of the service stopped (SIGSTOP)
inside a transaction, holding an endpoint's row as a worker's round does, just after an
executemany, has its session ended by the server within PLANTSTORE_DATABASE_TIMEOUT; a worker
then delivers to that endpoint and to another."""

import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from app import database
from harness.processes import wait_for
from support.clusters import create, driver_url
from support.in_process import running
from support.live_endpoints import ENDPOINT_SETTINGS
from support.tokens import issue_admin_token

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

TIMEOUT = 1
# What a busy machine may add: the server's check of the timeout, a worker's round after it.
MARGIN = 3


def sessions(database_url, backend):
    with psycopg.connect(driver_url(database_url), autocommit=True) as conn:
        found = "SELECT count(*) FROM pg_stat_activity WHERE pid = %s"
        return conn.execute(found, (backend,)).fetchone()[0]


def test_a_frozen_process_in_a_transaction_is_let_go_within_the_timeout(
    make_app, database_url, make_receiver
):
    worker = make_app(**ENDPOINT_SETTINGS, DATABASE_TIMEOUT=TIMEOUT)
    client, admin = worker.test_client(), issue_admin_token(worker)
    receivers = {}
    for name in ("held", "other"):
        receiver = make_receiver()
        body = {"url": receiver.url, "events": ["plant.created"]}
        endpoint = client.post("/webhooks", json=body, headers=admin).get_json()
        receiver.verify_with(endpoint["secret"])
        receivers[name] = (endpoint["id"], receiver)
    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "support.frozen_holder",
            database_url,
            receivers["held"][0],
            str(TIMEOUT),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    ) as holder:
        try:
            backend = int(holder.stdout.readline())
            holder.send_signal(signal.SIGSTOP)
            frozen = time.monotonic()
            create(client, 1)
            with running(worker):
                wait_for(lambda: sessions(database_url, backend) == 0, TIMEOUT + MARGIN, "the end")
                for endpoint_id, receiver in receivers.values():
                    wait_for(
                        lambda r=receiver: list(r.arrived()) == [1], TIMEOUT + MARGIN, endpoint_id
                    )
            assert time.monotonic() - frozen < TIMEOUT + MARGIN
        finally:
            holder.kill()  # its exit waits for it
    database.of(worker).dispose()
