"""Isolation beside hostile receivers, with the worker as a process, whose memory is the point:
endpoints whose names' server never answers, whose answers' head or body never ends, or that
trickle their answer, hold a healthy receiver to its 2 s and leave the worker's memory within
64 MiB of what it was without them."""

import time

import pytest

from harness.processes import wait_for
from harness.receivers import EndlessReceiver, TricklingReceiver
from support.attempts_process import memory_mib

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)]

HUNG = [f"hung-{number}.invalid" for number in range(6)]
# What the worker's memory may grow by beside them (the contract's bound).
GROWTH_MIB = 64


@pytest.fixture
def hostile():
    """An answer whose header never ends, one whose body never ends, and one that trickles."""
    made = [
        EndlessReceiver(b"HTTP/1.1 200 OK\r\nX-Big: "),
        EndlessReceiver(b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n"),
        TricklingReceiver(0.2),
    ]
    yield made
    for each in made:
        each.close()


def create_all(server, plant_ids):
    """Create each plant, ten a second; when each answer came (time.monotonic())."""
    answered = {}
    for plant_id in plant_ids:
        response = server.request("POST", "/plants", {"id": plant_id, "name": "Fern"})
        assert response.status == 200
        answered[plant_id] = time.monotonic()
        time.sleep(0.1)  # a steady pace of creates, not a wait for anything
    return answered


def test_a_healthy_receiver_keeps_its_2_s_and_the_worker_its_memory_beside_hostile_ones(
    app_stack, database_url, start_workers, make_receiver, name_server, hostile
):
    healthy = make_receiver()
    name_server.hung.update(HUNG)
    server, admin, _ = app_stack(WEBHOOK_NAMESERVERS=name_server.address)
    admin.subscribe(healthy, events=["plant.created"])
    process, log_path = start_workers({**server.env, "PLANTSTORE_DATABASE_URL": database_url})
    wait_for(lambda: "Delivering" in log_path.read_text(), 30, "the worker's start")
    create_all(server, range(5))
    wait_for(lambda: len(healthy.arrived()) == 5, 10, "the first events at the healthy receiver")
    without_them = memory_mib("VmRSS", process.pid)

    port = hostile[0].url.rsplit(":", 1)[1]
    urls = [f"http://{name}:{port}" for name in HUNG] + [each.url for each in hostile]
    for url in urls:
        admin.register(url, events=["plant.created"])
    answered = create_all(server, range(5, 35))
    wait_for(lambda: len(healthy.arrived()) == 35, 10, "every event at the healthy receiver")
    delays = [healthy.arrived()[plant_id] - at for plant_id, at in answered.items()]
    assert max(delays) <= 2, delays
    # The hostile ones were tried all along: the names asked about, the receivers reached.
    assert all(name_server.questions(name) for name in HUNG)
    assert all(each.attempts for each in hostile)
    grown = memory_mib("VmHWM", process.pid) - without_them
    assert grown <= GROWTH_MIB, grown
