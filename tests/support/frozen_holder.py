"""A process of the service inside a transaction as a worker's round is mid-way: an endpoint's
row held for update, an executemany just sent. It prints its session's backend pid once it
holds them, then waits on its standard input, where a test freezes it (SIGSTOP).

python -m support.frozen_holder DATABASE_URL ENDPOINT_ID DATABASE_TIMEOUT
"""

import sys

from app import create_app, database
from app.webhooks.tables.endpoints import rounds

# As a round writes an endpoint's rows: one statement, several rows, no result.
TOUCH = "UPDATE webhook_endpoints SET throttle_next = NULL WHERE id = %(id)s"


def hold(url, endpoint_id, timeout):
    """Hold endpoint_id's row in a transaction on url until standard input ends."""
    app = create_app({"TESTING": True, "DATABASE_URL": url, "DATABASE_TIMEOUT": timeout})
    db = database.of(app)
    with db.transaction() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
        rounds.lock(db, cursor, {endpoint_id})
        cursor.executemany(TOUCH, [{"id": endpoint_id}] * 2)
        print(backend, flush=True)  # the last the server hears of it: its Flush, if any
        sys.stdin.read()


if __name__ == "__main__":
    hold(sys.argv[1], sys.argv[2], float(sys.argv[3]))
