"""How long a use of the database may wait: one budget of seconds for every wait in a block."""

import threading
import time

_budget = threading.local()


class Budget:
    """Let every wait on the database within the block share one budget of seconds.

    A class, not a generator: it wraps every query, and costs a third as much.
    """

    def __init__(self, seconds):
        self.seconds = seconds
        self.outer = None

    def __enter__(self):
        self.outer = getattr(_budget, "ends", None)
        if self.outer is None:
            _budget.ends = time.monotonic() + self.seconds

    def __exit__(self, *exc_info):
        _budget.ends = self.outer


def remaining(default):
    """Seconds left of the current budget, or default outside one."""
    ends = getattr(_budget, "ends", None)
    return default if ends is None else max(0.001, ends - time.monotonic())
