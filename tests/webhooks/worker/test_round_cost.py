"""A worker's round costs what it has to do, not the number of endpoints: it asks for due
deliveries only the receivers that have a pending one, locks only the endpoints it claims for,
and reads the endpoints and their timelines again only once one changed."""

import threading
import time

import pytest
from sqlalchemy import text

from app import database
from app.webhooks.worker.ledger import Ledger
from support.endpoints import register
from support.tokens import TOKEN
from support.webhooks import create

# Endpoints beside the one that takes the events: as many as a test registers quickly.
OTHERS = 30
# Seconds a round may take while another transaction holds an endpoint it has no work for.
ROUND_MOST = 2

AUTH = {"Authorization": f"Bearer {TOKEN}"}
SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def statements(app, run):
    """How many statements SQLite ran for run(), on this thread's connection (the round's)."""
    with database.of(app).cursor() as cursor:
        connection = cursor.connection
    ran = []
    connection.set_trace_callback(ran.append)
    try:
        run()
    finally:
        connection.set_trace_callback(None)
    return len(ran)


def _wanting_all(ledger):
    # The loop wants some of every receiver whose window has room: every endpoint when idle.
    targets = ledger.round([], [], {}, {}).targets
    return {key: 8 for key in targets.by_receiver}


def _register_others(client, admin_headers):
    for _ in range(OTHERS):
        register(client, admin_headers, events=["plant.updated"])


@SQLITE
def test_an_idle_round_runs_as_many_statements_with_many_endpoints_as_with_one(app, admin_headers):
    client = app.test_client()
    register(client, admin_headers, events=["plant.deleted"])
    ledger = Ledger(app)
    wants = _wanting_all(ledger)
    one = statements(app, lambda: ledger.round([], [], wants, {}))
    _register_others(client, admin_headers)
    wants = _wanting_all(ledger)
    assert len(wants) == OTHERS + 1
    assert statements(app, lambda: ledger.round([], [], wants, {})) == one


def _fan_out_a_delete(app, ledger, plant_id):
    # Statements of a round that fans out a create and a delete, and what it claimed.
    client = app.test_client()
    wants = _wanting_all(ledger)
    assert create(client, plant_id).status_code == 200
    assert client.delete(f"/plants/{plant_id}", headers=AUTH).status_code == 204
    rounds = []
    count = statements(app, lambda: rounds.append(ledger.round([], [], wants, {})))
    return count, rounds[0].claimed


@SQLITE
def test_fanning_out_an_event_one_endpoint_takes_runs_as_many_statements_whatever_the_others(
    app, admin_headers
):
    client = app.test_client()
    register(client, admin_headers, events=["plant.deleted"])
    ledger = Ledger(app)
    _fan_out_a_delete(app, ledger, 1)  # the first read of the endpoints' timelines
    one, claimed = _fan_out_a_delete(app, ledger, 2)
    # The delete, to the one endpoint that takes it, and claimed for it.
    assert [each.event_type for each in claimed] == ["plant.deleted"]
    _register_others(client, admin_headers)
    _fan_out_a_delete(app, ledger, 3)  # read again once: the endpoints changed
    assert _fan_out_a_delete(app, ledger, 4)[0] == one


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_an_idle_round_does_not_wait_for_an_endpoint_another_transaction_holds(app, admin_headers):
    endpoint = register(app.test_client(), admin_headers, events=["plant.deleted"])
    ledger = Ledger(app)
    wants = _wanting_all(ledger)
    held, release = threading.Event(), threading.Event()

    def hold():
        with database.of(app).engine.begin() as conn:
            conn.execute(
                text("SELECT id FROM webhook_endpoints WHERE id = :id FOR UPDATE"),
                {"id": endpoint["id"]},
            )
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(10)
        started = time.monotonic()
        assert ledger.round([], [], wants, {}).claimed == []
        assert time.monotonic() - started < ROUND_MOST
    finally:
        release.set()
        holder.join()
