"""The feed's retention as its own job (docs/events.md#retention-and-the-410): `events prune` run
as the CLI, with no worker ever run, and beside the worker, on both backends. It deletes what is
past PLANTSTORE_EVENT_RETENTION by the database's clock, never what the fan-out has still to
read: after the fan-out's place once it has read an event, and everything before that while
the webhooks have a receiver (an endpoint, or the operator's URLs)."""

import datetime
import re

import pytest

from app import database
from app.events import cursors
from harness.processes import wait_for
from support.endpoints import register
from support.in_process import running
from support.live_endpoints import ENDPOINT_SETTINGS
from support.tokens import TOKEN, issue_admin_token
from support.webhooks import SECRET, create, receiver_settings, settled

# Seconds an event is kept: short, so that a case waits for it rather than forging times.
RETENTION = 2
# Longest wait beyond RETENTION for the database's clock to pass an event's, and for a worker
# to fan out, deliver and delete.
WITHIN = 10
DELETED = re.compile(rf"^Deleted (\d+) event\(s\) older than {RETENTION}s\.$", re.MULTILINE)
WAITING = re.compile(
    r"^(\d+) event\(s\) wait for the webhooks' fan-out, the oldest (\d+)s old", re.MULTILINE
)


def prune(app, *options):
    """Run `flask --app wsgi events prune OPTIONS` on app: how many it deleted, and its output."""
    result = app.test_cli_runner().invoke(args=["events", "prune", *options])
    assert result.exit_code == 0, (result.output, result.exc_info)
    return int(DELETED.search(result.output)[1]), result.output


def feed(app):
    """Every event the feed shows, from its start."""
    response = app.test_client().get("/events", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def plant_ids(app):
    return [event["data"]["id"] for event in feed(app)]


def create_plants(app, *plant_ids):
    client = app.test_client()
    for plant_id in plant_ids:
        assert create(client, plant_id).status_code == 200


def past_retention(app):
    """Wait until the newest event is older than RETENTION by the database's clock."""
    db = database.of(app)
    newest = datetime.datetime.fromisoformat(feed(app)[-1]["created_at"])
    wait_for(
        lambda: (database.now(db) - newest).total_seconds() > RETENTION,
        RETENTION + WITHIN,
        "the database's clock to pass the retention of the newest event",
    )


def fanned_out(app):
    """The fan-out's place, or None while it has never read an event."""
    db = database.of(app)
    with db.cursor() as cursor:
        return cursors.moved_to(cursor, cursors.FANOUT)


def test_with_no_worker_ever_run_prune_deletes_every_event_past_the_retention(
    make_app, make_receiver
):
    app = make_app(EVENT_RETENTION=RETENTION)
    create_plants(app, 1, 2, 3)
    assert prune(app)[0] == 0, "deleted before their time"
    assert plant_ids(app) == [1, 2, 3]
    past_retention(app)

    # Two batches of two: the command goes on until none is left past the retention.
    deleted, output = prune(app, "--batch", "2")
    assert deleted == 3 and not WAITING.search(output)
    assert plant_ids(app) == []
    create_plants(app, 4)
    assert prune(app)[0] == 0
    assert plant_ids(app) == [4]
    assert fanned_out(app) is None

    # A receiver configured later gets what is kept, and nothing of what went (SQLite keeps the
    # newest row that went).
    receiver = make_receiver(SECRET)
    settings = receiver_settings(SECRET, receiver.url, WEBHOOK_POLL_INTERVAL=0.05)
    worker = make_app(**settings, EVENT_RETENTION=RETENTION)
    with running(worker):
        wait_for(lambda: settled(worker.test_cli_runner(), 1), WITHIN, "the one delivery")
    assert list(receiver.arrived()) == [4]


@pytest.mark.parametrize("receiver_kind", ["endpoint", "operator"])
def test_prune_keeps_what_no_worker_has_fanned_out_to_a_receiver_and_the_worker_deletes_it(
    make_app, make_receiver, receiver_kind
):
    receiver = make_receiver()
    if receiver_kind == "operator":
        receiver.verify_with(SECRET)
        settings = receiver_settings(SECRET, receiver.url, WEBHOOK_POLL_INTERVAL=0.05)
        app = make_app(**settings, EVENT_RETENTION=RETENTION)
    else:
        app = make_app(**ENDPOINT_SETTINGS, EVENT_RETENTION=RETENTION)
        headers = issue_admin_token(app)
        endpoint = register(app.test_client(), headers, url=receiver.url, events=["plant.created"])
        receiver.verify_with(endpoint["secret"])
    create_plants(app, 1, 2)
    past_retention(app)

    deleted, output = prune(app)
    assert deleted == 0
    count, oldest = WAITING.search(output).groups()
    assert int(count) == 2 and int(oldest) >= RETENTION
    assert plant_ids(app) == [1, 2]

    with running(app):
        # The worker fans them out, then deletes them: on its own schedule, as before.
        wait_for(
            lambda: set(receiver.arrived()) == {1, 2} and plant_ids(app) == [],
            WITHIN,
            lambda: f"the deliveries and the deletion; got {receiver.arrived()}, {feed(app)}",
        )
    deleted, output = prune(app)
    assert deleted == 0 and not WAITING.search(output)


def test_once_the_fan_out_has_read_prune_deletes_nothing_it_has_not_read(make_app):
    # No receiver at all: the fan-out's place still holds, as a stopped worker's would.
    app = make_app(EVENT_RETENTION=RETENTION, WEBHOOK_POLL_INTERVAL=0.05)
    create_plants(app, 1)
    with running(app):
        wait_for(lambda: fanned_out(app) is not None, WITHIN, "the fan-out of the first event")
    # The worker's own retention may have deleted it too, had it run past RETENTION.
    fanned_but_kept = plant_ids(app)
    create_plants(app, 2, 3)
    past_retention(app)

    deleted, output = prune(app)
    assert deleted == len(fanned_but_kept)
    count, oldest = WAITING.search(output).groups()
    assert int(count) == 2 and int(oldest) >= RETENTION
    assert plant_ids(app) == [2, 3]


@pytest.mark.backend_independent
def test_a_batch_below_one_is_refused(make_app):
    result = make_app().test_cli_runner().invoke(args=["events", "prune", "--batch", "0"])
    assert result.exit_code == 2
    assert "--batch" in result.output
