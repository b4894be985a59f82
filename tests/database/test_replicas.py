"""The suite's streaming replica: it replays the primary, a cut loses what the primary commits
afterwards, and a promoted replica takes writes."""

import pytest

from support.replicas import Replica, crash, query

pytestmark = pytest.mark.e2e


def test_a_cut_replica_loses_later_commits_and_takes_writes_once_promoted(private_postgres):
    query(private_postgres, "CREATE TABLE marks (id int PRIMARY KEY)")
    query(private_postgres, "INSERT INTO marks VALUES (1)")
    replica = Replica(private_postgres)
    try:
        replica.wait_caught_up()
        assert replica.in_recovery()
        replica.cut()
        query(private_postgres, "INSERT INTO marks VALUES (2)")
        crash(private_postgres)
        replica.promote()
        assert not replica.in_recovery()
        assert query(replica, "INSERT INTO marks VALUES (3) RETURNING id") == 3
        assert query(replica, "SELECT array_agg(id ORDER BY id) FROM marks") == [1, 3]
    finally:
        replica.destroy()
