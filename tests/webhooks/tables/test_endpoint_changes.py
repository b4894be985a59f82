"""The endpoints' change serial (tables/endpoints/serial.py): every write of a column a worker
reads moves it on, in the writing transaction, so that a worker's kept endpoints are never
older than the round that reads them; the schedule of a throttled endpoint, written at every
claim, does not."""

import pytest
from sqlalchemy import text

from app import database
from app.webhooks.tables.endpoints import serial as endpoint_serial
from app.webhooks.tables.endpoints import webhook_endpoints
from app.webhooks.tables.records import Endpoint
from support.endpoints import register

# What a worker reads of an endpoint: its record's fields, and the event types of its timeline.
WATCHED = [name for name in Endpoint._fields if name != "id"] + ["events"]
UNWATCHED = ["description", "disabled_reason", "created_at", "throttle_next"]


def serial(app):
    with database.of(app).cursor() as cursor:
        return endpoint_serial.read(cursor).serial


def write(app, sql, **values):
    with database.of(app).engine.begin() as conn:
        conn.execute(text(sql), values)


@pytest.fixture
def endpoint(app, admin_headers):
    return register(app.test_client(), admin_headers, events=["plant.created"])["id"]


@pytest.mark.parametrize("column", WATCHED)
def test_writing_a_column_a_worker_reads_moves_the_serial_on(app, endpoint, column):
    before = serial(app)
    write(app, f"UPDATE webhook_endpoints SET {column} = {column} WHERE id = :id", id=endpoint)
    assert serial(app) == before + 1


@pytest.mark.parametrize("column", UNWATCHED)
def test_writing_a_column_no_worker_reads_leaves_the_serial(app, endpoint, column):
    before = serial(app)
    write(app, f"UPDATE webhook_endpoints SET {column} = {column} WHERE id = :id", id=endpoint)
    assert serial(app) == before


def test_a_registration_and_a_deletion_move_it_on(app, admin_headers):
    before = serial(app) or 0  # no row yet in a database emptied of its rows
    endpoint = register(app.test_client(), admin_headers)["id"]
    assert serial(app) > before
    registered = serial(app)
    response = app.test_client().delete(f"/webhooks/{endpoint}", headers=admin_headers)
    assert response.status_code == 204
    assert serial(app) > registered


def test_a_serial_whose_row_was_deleted_is_made_again_by_the_next_change(app, endpoint):
    write(app, "DELETE FROM webhook_endpoint_changes")
    assert serial(app) is None
    write(app, "UPDATE webhook_endpoints SET url = url WHERE id = :id", id=endpoint)
    assert serial(app) == 1


def test_every_column_is_watched_or_named_unwatched(app):
    # A new column must be one or the other: a worker reads it (a revision makes the triggers
    # again), or it does not (docs/development.md, "Adding an endpoint setting").
    assert sorted(webhook_endpoints.c.keys()) == sorted(["id", *WATCHED, *UNWATCHED])


def test_a_write_that_finds_no_row_leaves_the_serial(app, endpoint):
    # As a disable tried at each failed outcome does, while the endpoint has not failed long.
    before = serial(app)
    write(app, "UPDATE webhook_endpoints SET enabled = enabled WHERE id = :id", id="none")
    assert serial(app) == before
