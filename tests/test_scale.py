"""Scaling out: several gunicorn instances sharing PostgreSQL (two that the module's cases share,
each case with ids and tokens of its own), init-db from several processes at once, and PostgreSQL
going away (/livez stays 200 meanwhile)."""

import os
import subprocess
import sys

import pytest

from app import create_app, database
from harness.processes import ROOT, wait_for
from support.live_servers import race_creates
from support.tokens import TOKEN

pytestmark = pytest.mark.e2e

# The shared instances are on PostgreSQL alone: what they share there is the point.
ON_POSTGRESQL = pytest.mark.parametrize(
    "module_database_url", ["postgresql"], indirect=True, scope="module"
)


@pytest.fixture(scope="module")
def instances(module_live_server, module_database_url):
    """Two gunicorn instances on two ports, sharing one PostgreSQL database."""
    return module_live_server(module_database_url), module_live_server(module_database_url)


@ON_POSTGRESQL
def test_plant_created_through_one_is_read_through_the_other(instances):
    first, second = instances
    assert first.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    assert second.request("GET", "/plants/1").json() == {"id": 1, "name": "Fern"}
    assert second.request("DELETE", "/plants/1").status == 204
    assert first.request("GET", "/plants/1").status == 404


@ON_POSTGRESQL
def test_concurrent_creates_across_instances_store_one_plant(instances):
    winner = race_creates(list(instances), 7)
    for server in instances:
        listed = server.request("GET", "/plants?limit=1000").json()
        assert [plant for plant in listed if plant["id"] == 7] == [{"id": 7, "name": winner}]


@ON_POSTGRESQL
def test_token_revoked_by_the_cli_is_refused_by_every_instance(instances):
    first, second = instances
    token = first.cli("tokens", "create", "shared").splitlines()[-1]
    for server in instances:
        assert server.request("GET", "/plants", token=token).status == 200
    second.cli("tokens", "revoke", "shared")
    statuses = {server.request("GET", "/plants", token=token).status for server in instances * 10}
    assert statuses == {401}


def test_init_db_run_concurrently_is_safe(postgres_url):
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
    # The schema they left serves: an app in this process creates a plant on it.
    app = create_app({"TESTING": True, "DATABASE_URL": postgres_url, "API_TOKENS": TOKEN})
    try:
        response = app.test_client().post(
            "/plants", json={"id": 1, "name": "Fern"}, headers={"Authorization": f"Bearer {TOKEN}"}
        )
        assert response.status_code == 200, response.get_data(as_text=True)
    finally:
        database.of(app).dispose()


def test_database_outage_is_503_and_livez_200_then_recovers_without_restart(
    live_server, private_postgres
):
    server = live_server(private_postgres.url, workers=2)
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    private_postgres.stop()
    for _ in range(4):  # every worker, whichever answers: alive, and not ready
        assert server.request("GET", "/livez").status == 200
        unready = server.request("GET", "/healthz")
        assert unready.status == 503
        assert unready.json() == {"error": 503, "message": "database unavailable"}
    for method, path, body in [
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
