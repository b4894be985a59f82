"""The suite's own PostgreSQL and Redis servers: a port taken between the look for a free one
and the server's start costs another try, not the run."""

import socket

import pytest
import redis
from sqlalchemy import create_engine, text

from harness.processes import free_port
from support import local_servers
from support.local_servers import PrivatePostgres, PrivateRedis, redis_server_or_skip


@pytest.fixture
def taken_first(monkeypatch):
    """A port somebody listens on, which the next look for a free port finds first."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        looks = iter([taken])
        monkeypatch.setattr(local_servers, "free_port", lambda: next(looks, None) or free_port())
        yield taken


def test_a_private_postgres_starts_on_another_port_when_its_first_is_taken(
    postgres_template, taken_first
):
    server = PrivatePostgres(postgres_template)
    try:
        assert server.port != taken_first
        engine = create_engine(server.url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT 1")).scalar() == 1
        engine.dispose()
    finally:
        server.destroy()


def test_a_private_redis_starts_on_another_port_when_its_first_is_taken(tmp_path, taken_first):
    server = PrivateRedis(redis_server_or_skip("needs redis-server"), tmp_path)
    try:
        assert f":{taken_first}/" not in server.url
        client = redis.Redis.from_url(server.url)
        assert client.ping()
        client.close()
    finally:
        server.destroy()
