"""What a serving process on SQLite imports: neither Alembic, psycopg, limits nor redis, each a
tenth of a second or more that every gunicorn worker, webhook worker and command would pay."""

import os
import subprocess
import sys

from harness.processes import ROOT
from support.tokens import TOKEN

# Where each is imported when it is used: migrate.py, postgresql.py, app/ratelimit/.
DEFERRED = ("alembic", "psycopg", "limits", "redis")
# What a gunicorn worker runs: the app, then its start-up check of the schema's revision.
SERVING = (
    "import sys, wsgi\n"
    "from app import check_at_start\n"
    "check_at_start(wsgi.app)\n"
    f"print(*sorted(set(sys.modules) & set({DEFERRED!r})))\n"
)


def test_a_serving_process_on_sqlite_imports_no_library_it_does_not_use(tmp_path):
    env = {
        **{key: value for key, value in os.environ.items() if not key.startswith("PLANTSTORE_")},
        "PLANTSTORE_DATABASE_URL": f"sqlite:///{tmp_path / 'plantstore.sqlite'}",
        "PLANTSTORE_API_TOKENS": TOKEN,
    }
    result = subprocess.run(
        [sys.executable, "-c", SERVING],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "database schema is out of date" in result.stderr  # the check ran, on no schema
    assert result.stdout.split() == []
