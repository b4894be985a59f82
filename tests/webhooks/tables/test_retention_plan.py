"""The deliveries' retention reads the expired rows through the delivered rows' own index, the
oldest first, a batch and no more, whatever the planner expects of them and however many
receivers: a backlog of expired rows, analysed, never turns a pass into reading all of them (a
bitmap scan), or the whole table (a scan)."""

import pytest

from app.webhooks.tables.deliveries import outbox as outbox_table
from support.outbox import delivery_rows

RECEIVERS = 10
# Expired rows per receiver: enough that a LIMIT alone would make a scan look cheap.
EXPIRED_EACH = 3000


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_pass_over_a_backlog_of_expired_rows_reads_the_receiver_s_index(outbox):
    # Written as a service writes them: the receivers' rows interleaved.
    rows = delivery_rows("delivered", RECEIVERS * EXPIRED_EACH)
    for number, row in enumerate(rows):
        row["receiver"] = f"https://r{number % RECEIVERS}.example/"
    db = outbox(rows=rows)
    values = {"cutoff": -3600, "limit": 1000}
    with db.cursor() as cursor:
        cursor.execute("EXPLAIN " + outbox_table.EXPIRED.sql["postgresql"], values)
        plan = " ".join(row[0] for row in cursor.fetchall())
    # An index scan stops at the batch: a bitmap scan or a sort reads every expired row first.
    assert "Index Scan using deliveries_delivered" in plan, plan
    assert not any(word in plan for word in ("Bitmap", "Seq Scan", "Sort")), plan
