"""The host's writer lock: bounded waits, and a lock that outlives no writer who gave up."""

import fcntl
import threading
import time

import pytest

from app.database.hostlock import HostLock, LockTimeout
from liveserver import Holder, wait_for


@pytest.fixture
def lock_path(tmp_path):
    """Where the lock file goes."""
    return tmp_path / "db.sqlite-writer"


def free_for_another_process(path):
    """Whether another open file description gets the lock at once."""
    with open(path, "a") as other:
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(other, fcntl.LOCK_UN)
        return True


def test_free_lock_is_taken_at_once_and_released(lock_path):
    lock = HostLock(str(lock_path))
    lock.acquire(1)
    assert not free_for_another_process(lock_path)
    lock.release()
    assert free_for_another_process(lock_path)


def test_wait_for_a_frozen_holder_ends_at_the_timeout(lock_path):
    holder = Holder("flock", lock_path)
    holder.freeze()
    lock = HostLock(str(lock_path))
    started = time.monotonic()
    try:
        with pytest.raises(LockTimeout):
            lock.acquire(0.3)
    finally:
        holder.end()
    assert 0.3 <= time.monotonic() - started < 1.5


def test_lock_won_after_a_writer_gave_up_is_let_go(lock_path):
    holder = Holder("flock", lock_path)
    lock = HostLock(str(lock_path))
    with pytest.raises(LockTimeout):
        lock.acquire(0.2)
    holder.end()
    # The helper that went on waiting gets the lock, finds nobody waiting, and lets it go.
    wait_for(lambda: free_for_another_process(lock_path), 5, "the lock to be let go")


def test_next_writer_takes_over_the_helper_of_one_that_gave_up(lock_path):
    holder = Holder("flock", lock_path)
    lock = HostLock(str(lock_path))
    with pytest.raises(LockTimeout):
        lock.acquire(0.2)
    # This writer joins the helper still waiting in the kernel, and gets the lock from it.
    ending = threading.Timer(0.3, holder.end)
    ending.start()
    lock.acquire(5)
    ending.join()
    assert holder.process.returncode is not None
    assert not free_for_another_process(lock_path)
    lock.release()
    assert free_for_another_process(lock_path)
