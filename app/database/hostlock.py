"""The turn SQLite writers take on one host: every thread and process, waiting a bounded time."""

import fcntl
import os
import threading
import time

# Seconds a writer that finds the holder stuck still waits: the lock it found taken may be its
# own helper's, woken by the holder's end an instant before it could say so (_helper_holds).
HANDOVER = 0.05


class LockTimeout(Exception):
    """Another writer held the lock for longer than the wait allowed."""


class HostLock:
    """An exclusive lock shared by every process that opens the same file.

    Threads of a process queue on a thread lock, so one thread per process at most asks the
    kernel. That one takes the file lock at once when it is free; when it is not, a helper
    thread blocks in ``flock`` (the kernel wakes it the moment the holder lets go, with no
    polling) while the writer waits on it with a timeout. A helper whose writer gave up hands
    the lock to the process's next writer, or lets go of it if there is none, so a stopped or
    slow holder costs other writers at most their timeout and never the lock for good.

    A holder that has kept the lock from the helper for longer than a writer may wait in all is
    stuck (stopped, hung): unless one non-blocking try finds it gone, that writer fails at once
    (within HANDOVER, in case the helper has just taken the lock).
    Otherwise each writer of a single-threaded worker would wait its whole timeout in turn, the
    last one in its queue for many timeouts.
    """

    def __init__(self, path):
        self.path = path
        self._threads = threading.Lock()
        # Guards the hand-over between the helper and the writers.
        self._handover = threading.Lock()
        self._fd = None
        self._pid = None
        self._helper = None
        # When the helper began to wait in the kernel: how long the holder has kept the lock.
        self._helper_since = 0.0
        # Whether the helper has the lock from the kernel and is about to hand it over.
        self._helper_holds = False
        self._waiting = False

    def acquire(self, timeout):
        """Take the lock, or raise LockTimeout after timeout seconds (OSError: no lock file)."""
        deadline = time.monotonic() + timeout
        if not self._threads.acquire(timeout=timeout):
            raise LockTimeout(f"another writer held {self.path} for over {timeout:.1f}s")
        try:
            self._acquire(self._file(), timeout, deadline)
        except BaseException:
            self._threads.release()
            raise

    def release(self):
        """Let the next writer in."""
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._threads.release()

    def _file(self):
        # A descriptor inherited through fork shares its lock with the parent: open our own.
        if self._pid != os.getpid():
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            self._pid, self._helper, self._helper_holds = os.getpid(), None, False
        return self._fd

    def _acquire(self, fd, timeout, deadline):
        with self._handover:
            # With a helper still waiting on this descriptor, only the helper may take the lock:
            # a non-blocking attempt would succeed on the descriptor the helper is about to hold.
            if self._helper is None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return
                except BlockingIOError:
                    stuck = False
                    self._helper, self._helper_since = threading.Event(), time.monotonic()
                    threading.Thread(target=self._wait_in_kernel, args=(fd,), daemon=True).start()
            else:
                stuck = (
                    time.monotonic() - self._helper_since >= timeout
                    and not self._helper_holds
                    and not self._free_now()
                )
            acquired = self._helper
            self._waiting = True
        longest = deadline - time.monotonic()
        acquired.wait(max(0.0, min(HANDOVER, longest) if stuck else longest))
        with self._handover:
            self._waiting = False
            if acquired.is_set():
                return
        if stuck:
            raise LockTimeout(f"another writer has held {self.path} for over {timeout:.1f}s")
        raise LockTimeout(f"another writer held {self.path} for too long")

    def _free_now(self):
        # On a descriptor of its own: the helper's may be about to hold the lock. Closing it
        # lets go at once, for the helper to take the lock and hand it over.
        fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        finally:
            os.close(fd)
        return True

    def _wait_in_kernel(self, fd):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            with self._handover:
                self._helper = None  # the next writer asks the kernel again
            return
        self._helper_holds = True
        self._hand_over(fd)

    def _hand_over(self, fd):
        # The lock is this process's: to the writer waiting for it, else let go.
        with self._handover:
            done, self._helper = self._helper, None
            self._helper_holds = False
            if self._waiting:
                done.set()
            else:
                fcntl.flock(fd, fcntl.LOCK_UN)
