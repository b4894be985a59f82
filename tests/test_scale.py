"""Scaling out: several gunicorn instances sharing PostgreSQL, and PostgreSQL going away."""

import os
import subprocess
import sys

import pytest

from harness.processes import ROOT, wait_for
from liveserver import race_creates

pytestmark = pytest.mark.e2e


@pytest.fixture
def instances(live_server, postgres_url):
    """Two gunicorn instances on two ports, sharing one PostgreSQL database."""
    return live_server(postgres_url), live_server(postgres_url)


def test_plant_created_through_one_is_read_through_the_other(instances):
    first, second = instances
    assert first.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    assert second.request("GET", "/plants/1").json() == {"id": 1, "name": "Fern"}
    assert second.request("DELETE", "/plants/1").status == 204
    assert first.request("GET", "/plants/1").status == 404


def test_concurrent_creates_across_instances_store_one_plant(instances):
    winner = race_creates(list(instances), 7)
    for server in instances:
        assert server.request("GET", "/plants").json() == [{"id": 7, "name": winner}]


def test_token_revoked_by_the_cli_is_refused_by_every_instance(instances):
    first, second = instances
    token = first.cli("tokens", "create", "shared").splitlines()[-1]
    for server in instances:
        assert server.request("GET", "/plants", token=token).status == 200
    second.cli("tokens", "revoke", "shared")
    statuses = {server.request("GET", "/plants", token=token).status for server in instances * 10}
    assert statuses == {401}


def test_init_db_run_concurrently_is_safe(postgres_url, live_server):
    env = {**os.environ, "PLANTSTORE_DATABASE_URL": postgres_url}
    command = [sys.executable, "-m", "flask", "--app", "wsgi", "init-db"]
    runs = [
        subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        for _ in range(4)
    ]
    outputs = [run.communicate(timeout=60)[0].decode() for run in runs]
    assert [run.returncode for run in runs] == [0] * 4, outputs
    server = live_server(postgres_url)
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200


def test_database_outage_is_503_then_recovers_without_restart(live_server, private_postgres):
    server = live_server(private_postgres.url, workers=2)
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    private_postgres.stop()
    for method, path, body in [
        ("GET", "/healthz", None),
        ("GET", "/plants/1", None),
        ("GET", "/plants", None),
        ("POST", "/plants", {"id": 2, "name": "Aloe"}),
    ]:
        response = server.request(method, path, body)
        assert response.status == 503
        assert response.json() == {"error": 503, "message": "database unavailable"}
    private_postgres.start()
    wait_for(lambda: server.request("GET", "/healthz").status == 200, 30, "recovery")
    statuses = {server.request("GET", "/plants/1").status for _ in range(10)}
    assert statuses == {200}
    assert server.request("POST", "/plants", {"id": 2, "name": "Aloe"}).status == 200
