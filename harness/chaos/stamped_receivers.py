"""The run's webhook receivers: each request stamped by the kernel as it arrived, with its
webhook-id, its event id, when it was answered and how; one may be told to fail or to hang."""

import select
import threading
import time

from harness.stamping import StampingReceiver

FAILED = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
# Each answer waits this long, seconds: a sender's attempts overlap only if they last a while.
ANSWER_DELAY = 0.05


class ChaosReceiver(StampingReceiver):
    """A StampingReceiver that keeps, per request, a dict of ``webhook_id``, ``event_id``,
    ``arrived`` (the kernel's stamp), ``answered`` (time.time() when answered, or when the
    sender gave up waiting) and ``status`` (None when never answered) in ``arrivals``."""

    def __init__(self, name):
        self.name = name
        self.arrivals = []
        self.mode, self.hang_for = "answer", 0
        self._lock = threading.Lock()
        super().__init__()

    def fail(self):
        """Answer 500 from now on, until answer()."""
        self.mode = "fail"

    def hang(self, seconds):
        """Hold each request this long without an answer from now on, until answer()."""
        self.mode, self.hang_for = "hang", seconds

    def answer(self):
        """Answer 200 again."""
        self.mode = "answer"

    def respond(self, conn, stamp, headers):
        """Answer as the receiver's mode says, and keep the request's record."""
        record = {
            "webhook_id": headers.get("webhook-id"),
            "event_id": headers.get("plantstore-event-id"),
            "arrived": stamp,
            "answered": None,
            "status": None,
        }
        with self._lock:
            self.arrivals.append(record)
            self.stamps.append((stamp, record["webhook_id"]))
        mode = self.mode
        if mode == "hang" and _closed_within(conn, self.hang_for):
            record["answered"] = time.time()
            raise OSError("the sender gave up")
        time.sleep(ANSWER_DELAY)
        try:
            conn.sendall(FAILED if mode == "fail" else self.ANSWER)
        finally:
            record["answered"] = time.time()
        record["status"] = 500 if mode == "fail" else 200


def _closed_within(conn, seconds):
    # Whether the sender closed the connection (or sent more) within seconds.
    readable, _, _ = select.select([conn], [], [], seconds)
    return bool(readable)
