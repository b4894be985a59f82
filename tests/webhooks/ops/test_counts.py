"""The outbox counted at any size: pending and failed through partial indexes of their own,
delivered exactly up to totals.EXACT_UP_TO and estimated beyond, and the failed list a page at
a time (`webhooks status`, `webhooks failed`)."""

import re
import time

import pytest

from app.webhooks.tables.deliveries import totals
from support.webhooks import status_of

# A bad command line is refused at once.
REFUSED_WITHIN = 5


def test_a_few_delivered_are_counted_exactly(app, outbox):
    outbox(delivered=3, pending=2, failed=1)
    assert "pending: 2\ndelivered: 3\nfailed: 1\n" in status_of(app.test_cli_runner())


def test_delivered_beyond_the_exact_count_are_estimated_on_postgresql_bounded_on_sqlite(
    app, outbox, database_url
):
    db = outbox(delivered=totals.EXACT_UP_TO + 500, pending=2)
    status = status_of(app.test_cli_runner())
    if db.is_sqlite:
        assert f"\ndelivered: more than {totals.EXACT_UP_TO}\n" in status, status
        return
    about = int(re.search(r"\ndelivered: about (\d+)\n", status)[1])
    # Analysed just now: the table's estimate is its rows, less the two pending.
    assert abs(about - (totals.EXACT_UP_TO + 500)) <= 50, status


@pytest.mark.parametrize(
    ("statement", "index"),
    [
        (totals.BY_RECEIVER, "deliveries_pending"),
        (totals.BY_RECEIVER, "deliveries_failed_receiver"),
        (totals.FAILED_PAGE, "deliveries_failed"),
    ],
    ids=["pending counts", "failed counts", "failed list"],
)
def test_counts_and_the_failed_list_read_the_backlog_s_own_index(app, outbox, statement, index):
    db = outbox(delivered=5000, pending=10, failed=10)
    explain = "EXPLAIN QUERY PLAN " if db.is_sqlite else "EXPLAIN "
    with db.cursor() as cursor:
        cursor.execute(explain + statement.sql[db.dialect], {**totals.FIRST, "limit": 21})
        plan = " ".join(str(part) for row in cursor.fetchall() for part in row)
    assert re.search(rf"\b{index}\b", plan), plan
    # Never the endpoint log's index, which holds every delivery.
    assert "deliveries_receiver_created" not in plan, plan


def _failed_ids(output):
    return re.findall(r"^failed (\w+) ", output, re.MULTILINE)


def test_the_failed_list_pages_oldest_first(app, outbox):
    outbox(failed=3)
    runner = app.test_cli_runner()
    first = runner.invoke(args=["webhooks", "failed", "--limit", "2"])
    ids = _failed_ids(first.output)
    assert (first.exit_code, ids) == (0, [f"f{n:031d}" for n in range(2)]), first.output
    assert first.output.endswith(f"more: flask --app wsgi webhooks failed --after {ids[1]}\n")
    rest = runner.invoke(args=["webhooks", "failed", "--limit", "2", "--after", ids[1]])
    assert (rest.exit_code, _failed_ids(rest.output)) == (0, [f"f{2:031d}"]), rest.output
    assert "more:" not in rest.output


def test_status_lists_the_oldest_failed_and_says_where_the_rest_are(app, outbox):
    outbox(failed=25)
    status = status_of(app.test_cli_runner())
    shown = _failed_ids(status)
    assert shown == [f"f{n:031d}" for n in range(20)], status
    assert status.endswith(f"more: flask --app wsgi webhooks failed --after {shown[-1]}\n")


@pytest.mark.backend_independent
def test_a_page_after_a_delivery_no_longer_failed_is_refused(app, outbox):
    outbox(failed=1)
    started = time.monotonic()
    result = app.test_cli_runner().invoke(args=["webhooks", "failed", "--after", "gone"])
    assert time.monotonic() - started < REFUSED_WITHIN
    assert result.exit_code == 1
    assert "Error: no failed delivery gone: retried or purged since?" in result.output


@pytest.mark.backend_independent
@pytest.mark.parametrize("limit", ["0", "1001", "many"])
def test_a_failed_page_s_limit_out_of_range_is_refused(app, limit):
    started = time.monotonic()
    result = app.test_cli_runner().invoke(args=["webhooks", "failed", "--limit", limit])
    assert time.monotonic() - started < REFUSED_WITHIN
    assert result.exit_code == 2
    assert "Invalid value for '--limit'" in result.output
