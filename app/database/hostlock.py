"""The turn SQLite writers take on one host: every thread and process, waiting a bounded time."""

import fcntl
import os
import threading
import time


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
    """

    def __init__(self, path):
        self.path = path
        self._threads = threading.Lock()
        # Guards the hand-over between the helper and the writers.
        self._handover = threading.Lock()
        self._fd = None
        self._pid = None
        self._helper = None
        self._waiting = False

    def acquire(self, timeout):
        """Take the lock, or raise LockTimeout after timeout seconds (OSError: no lock file)."""
        deadline = time.monotonic() + timeout
        if not self._threads.acquire(timeout=timeout):
            raise LockTimeout(f"another writer held {self.path} for over {timeout:.1f}s")
        try:
            self._acquire(self._file(), deadline)
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
            self._pid, self._helper = os.getpid(), None
        return self._fd

    def _acquire(self, fd, deadline):
        with self._handover:
            # With a helper still waiting on this descriptor, only the helper may take the lock:
            # a non-blocking attempt would succeed on the descriptor the helper is about to hold.
            if self._helper is None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return
                except BlockingIOError:
                    self._helper = threading.Event()
                    threading.Thread(target=self._wait_in_kernel, args=(fd,), daemon=True).start()
            acquired = self._helper
            self._waiting = True
        acquired.wait(max(0.0, deadline - time.monotonic()))
        with self._handover:
            self._waiting = False
            if acquired.is_set():
                return
        raise LockTimeout(f"another writer held {self.path} for too long")

    def _wait_in_kernel(self, fd):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            with self._handover:
                self._helper = None  # the next writer asks the kernel again
            return
        with self._handover:
            done, self._helper = self._helper, None
            if self._waiting:
                done.set()
            else:
                fcntl.flock(fd, fcntl.LOCK_UN)
