"""The host's writer lock: bounded waits, and a lock that outlives no writer who gave up."""

import fcntl
import threading
import time

import pytest

from app.database.hostlock import HANDOVER, HostLock, LockTimeout
from harness.processes import wait_for
from support.locks import Holder


@pytest.fixture
def lock_path(tmp_path):
    """Where the lock file goes."""
    return tmp_path / "db.sqlite-writer"


@pytest.fixture
def frozen_holder(lock_path):
    """Another process holding the lock, frozen by SIGSTOP; ended after the test."""
    holder = Holder("flock", lock_path)
    holder.freeze()
    yield holder
    holder.end()


def free_for_another_process(path):
    """Whether another open file description gets the lock at once."""
    with open(path, "a") as other:
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(other, fcntl.LOCK_UN)
        return True


def gave_up(lock):
    """Hold lock's file in another process, and let a writer give up on it after 0.2 s."""
    holder = Holder("flock", lock.path)
    with pytest.raises(LockTimeout):
        lock.acquire(0.2)
    return holder


def test_free_lock_is_taken_at_once_and_released(lock_path):
    lock = HostLock(str(lock_path))
    lock.acquire(1)
    assert not free_for_another_process(lock_path)
    lock.release()
    assert free_for_another_process(lock_path)


def test_wait_for_a_frozen_holder_ends_at_the_timeout(lock_path, frozen_holder):
    lock = HostLock(str(lock_path))
    started = time.monotonic()
    with pytest.raises(LockTimeout):
        lock.acquire(0.3)
    assert 0.3 <= time.monotonic() - started < 1.5


def test_lock_won_after_a_writer_gave_up_is_let_go(lock_path):
    lock = HostLock(str(lock_path))
    holder = gave_up(lock)
    holder.end()
    # The helper that went on waiting gets the lock, finds nobody waiting, and lets it go.
    wait_for(lambda: free_for_another_process(lock_path), 5, "the lock to be let go")


def test_next_writer_takes_over_the_helper_of_one_that_gave_up(lock_path):
    lock = HostLock(str(lock_path))
    holder = gave_up(lock)
    # This writer joins the helper still waiting in the kernel, and gets the lock from it.
    ending = threading.Timer(0.3, holder.end)
    ending.start()
    lock.acquire(5)
    ending.join()
    assert holder.process.returncode is not None
    assert not free_for_another_process(lock_path)
    lock.release()
    assert free_for_another_process(lock_path)


def test_writer_fails_at_once_once_the_holder_kept_the_lock_longer_than_it_may_wait(
    lock_path, frozen_holder
):
    lock = HostLock(str(lock_path))
    with pytest.raises(LockTimeout):
        lock.acquire(0.3)
    # The frozen holder has now kept the lock for the whole 0.3 s: waiting again is queueing.
    for _ in range(3):
        started = time.monotonic()
        with pytest.raises(LockTimeout):
            lock.acquire(0.3)
        assert time.monotonic() - started < HANDOVER + 0.1  # not the whole 0.3 s
    frozen_holder.end()
    # Once the holder lets go, the helper takes the lock and lets it go: writers take it again.
    wait_for(lambda: free_for_another_process(lock_path), 5, "the lock to be let go")
    started = time.monotonic()
    lock.acquire(0.3)
    assert time.monotonic() - started < 0.1
    lock.release()
    assert free_for_another_process(lock_path)


class LateHelper(HostLock):
    """A HostLock whose helper asks the kernel only when let: a helper not yet scheduled."""

    def __init__(self, path):
        super().__init__(path)
        self.wake = threading.Event()

    def _wait_in_kernel(self, fd):
        self.wake.wait()
        super()._wait_in_kernel(fd)


def test_writer_finds_a_holder_that_let_go_before_the_helper_noticed(lock_path):
    lock = LateHelper(str(lock_path))
    holder = gave_up(lock)
    holder.end()
    # The holder kept the lock past this writer's whole timeout, but is gone: one try finds the
    # lock free, and the writer waits for the helper instead of failing.
    waking = threading.Timer(0.1, lock.wake.set)
    waking.start()
    lock.acquire(0.2)
    waking.join()
    assert not free_for_another_process(lock_path)
    lock.release()
    assert free_for_another_process(lock_path)


class SlowHandOver(HostLock):
    """A HostLock whose helper, once it holds the lock, hands it over only when a writer waits
    for it: a helper woken by the holder's end, not yet scheduled again."""

    def __init__(self, path):
        super().__init__(path)
        self.holds = threading.Event()

    def _hand_over(self, fd):
        self.holds.set()
        wait_for(lambda: self._waiting, 5, "a writer waiting")
        super()._hand_over(fd)


def test_writer_gets_the_lock_that_its_helper_took_as_the_holder_ended(lock_path):
    lock = SlowHandOver(str(lock_path))
    holder = gave_up(lock)
    holder.end()
    assert lock.holds.wait(5)
    # The holder kept the lock past this writer's whole timeout, and the lock is still taken:
    # by this process's own helper, which hands it over rather than the writer failing.
    lock.acquire(0.2)
    assert not free_for_another_process(lock_path)
    lock.release()
    assert free_for_another_process(lock_path)
