"""Which endpoints get an event never depends on the hosts' clocks: on PostgreSQL, with the host
that creates plants 2 s behind the one that changes the endpoint, an endpoint enabled by a
change that committed before the create gets its event, and one disabled before does not.
Two gunicorns, one of them with its wall clock shifted (tests/support/clock_shift.c); the
worker in process, whose clock plays no part."""

import pytest

from app import database, events
from harness.processes import wait_for
from support.clocks import build_clock_shift, compiler
from support.in_process import running
from support.live_endpoints import ENDPOINT_SETTINGS, Admin, issue_admin_token
from support.live_servers import environment

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.parametrize("database_url", ["postgresql"], indirect=True),
]

SHIFT = "-2"


@pytest.fixture(scope="module")
def clock_shift(tmp_path_factory):
    """The LD_PRELOAD library that shifts a process's wall clock, built with the machine's cc."""
    if compiler() is None:
        pytest.skip("builds a library that shifts a clock (Debian package gcc)")
    return build_clock_shift(tmp_path_factory.mktemp("clock"))


def test_an_endpoint_is_judged_by_what_committed_before_the_event_not_by_clocks(
    live_server, database_url, make_app, make_receiver, clock_shift
):
    env = environment(ENDPOINT_SETTINGS)
    changes = live_server(database_url, **env)
    behind = live_server(
        database_url, release=False, LD_PRELOAD=str(clock_shift), CLOCK_SHIFT_SECONDS=SHIFT, **env
    )
    admin = Admin(changes, issue_admin_token(database_url))
    receiver = make_receiver()
    endpoint = admin.subscribe(receiver, events=["plant.created"], enabled=False)
    worker = make_app(**ENDPOINT_SETTINGS)
    fanned_out = lambda: events.cursors.waiting(database.of(worker))[0] == 0  # noqa: E731
    with running(worker):
        # Enabled, then a create on the host 2 s behind: its event is stamped before the change.
        admin.patch(endpoint["id"], enabled=True)
        assert behind.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
        delivered = lambda: admin.newest(endpoint["id"]).get("status") == "delivered"  # noqa: E731
        wait_for(delivered, 10, "the first delivered")
        # Disabled, then another: it must not go, nor be kept as failed.
        admin.patch(endpoint["id"], enabled=False)
        assert behind.request("POST", "/plants", {"id": 2, "name": "Aloe"}).status == 200
        wait_for(fanned_out, 10, "the fan-out of the second")
    assert list(receiver.arrived()) == [1]
    assert [each["status"] for each in admin.deliveries(endpoint["id"])] == ["delivered"]
