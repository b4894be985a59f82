"""Log lines: one JSON object per line with PLANTSTORE_LOG_FORMAT=json; never a token or a body.

Two gunicorn instances per backend, one logging text and one JSON, that the module's cases
share; and a webhook worker process stopped by SIGTERM."""

import datetime
import json
import os
import re
import signal
import subprocess
import sys

import pytest
from sqlalchemy import create_engine

from harness.processes import ROOT, wait_for
from support.live_servers import upgrade
from support.tokens import TOKEN

pytestmark = pytest.mark.e2e

SECRET_NAME = "body-marker-5f1c"  # a value only ever sent in a request body
RFC3339_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
ACCESS_FIELDS = {"method", "path", "status", "bytes", "duration_ms", "remote_addr", "request_id"}


def json_lines(text):
    """Every line parsed as a JSON object carrying time, level, logger and message."""
    records = []
    for line in text.splitlines():
        record = json.loads(line)
        assert {"time", "level", "logger", "message"} <= set(record), line
        assert RFC3339_UTC.fullmatch(record["time"]), line
        records.append(record)
    return records


def exercise(servers, database_url):
    """Requests that log, to each server: accesses with a token and a body, a refused token,
    and an app warning in a request (the plants table dropped under the servers' feet)."""
    for server in servers:
        server.request(
            "POST", "/plants", {"id": 1, "name": SECRET_NAME}, headers={"X-Request-ID": "r-1"}
        )
        server.request("GET", "/plants?limit=1", headers={"X-Request-ID": "r-2"})
    engine = create_engine(database_url)
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE plants")
    engine.dispose()
    for server in servers:
        server.request(
            "POST", "/plants", {"id": 2, "name": SECRET_NAME}, headers={"X-Request-ID": "r-3"}
        )
        refused = "pst_refused-token-0123456789abcdefghij"
        server.request("GET", "/plants", headers={"X-Request-ID": "r-4"}, token=refused)
        wait_for(lambda server=server: "r-4" in server.log(), 10, "the last access line")


@pytest.fixture(scope="module")
def logging_servers(module_live_server, module_database_url):
    """An instance logging text and one logging JSON, on one database, that exercise() has
    sent its requests to: {format: server}."""
    servers = {
        log_format: module_live_server(module_database_url, PLANTSTORE_LOG_FORMAT=log_format)
        for log_format in ("text", "json")
    }
    exercise(servers.values(), module_database_url)
    return servers


def test_json_logs_parse_line_by_line_with_the_request_fields(logging_servers):
    records = json_lines(logging_servers["json"].log())
    assert {record["logger"] for record in records} >= {"gunicorn.error", "gunicorn.access", "app"}
    access = {r["request_id"]: r for r in records if r["logger"] == "gunicorn.access"}
    assert set(access["r-1"]) >= ACCESS_FIELDS
    assert access["r-1"]["method"] == "POST" and access["r-1"]["path"] == "/plants"
    assert access["r-1"]["status"] == 200 and access["r-1"]["bytes"] > 0
    assert (
        access["r-2"]["path"] == "/plants?limit=1" and access["r-2"]["remote_addr"] == "127.0.0.1"
    )
    assert isinstance(access["r-2"]["duration_ms"], float)
    (warning,) = [r for r in records if r["logger"] == "app" and r.get("request_id") == "r-3"]
    assert warning["level"] == "WARNING"
    assert "database schema is not initialised" in warning["message"]


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_no_token_and_no_body_reaches_the_log(logging_servers, log_format):
    log = logging_servers[log_format].log()
    assert "r-4" in log  # every request of exercise() was logged
    assert TOKEN not in log and "refused-token" not in log
    assert SECRET_NAME not in log


def test_text_access_lines_start_with_a_utc_timestamp(logging_servers):
    server = logging_servers["text"]
    server.request("GET", "/livez", headers={"X-Request-ID": "stamped"})
    wait_for(lambda: "request_id=stamped" in server.log(), 10, "the access line")
    line = next(line for line in server.log().splitlines() if "request_id=stamped" in line)
    stamp = line.split(" ", 1)[0]
    assert RFC3339_UTC.fullmatch(stamp), line
    moment = datetime.datetime.fromisoformat(stamp)
    assert abs(datetime.datetime.now(datetime.UTC) - moment) < datetime.timedelta(minutes=5)


def test_cli_and_webhook_worker_log_json_lines(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PLANTSTORE_")},
        "PLANTSTORE_DATABASE_URL": f"sqlite:///{tmp_path / 'plantstore.sqlite'}",
        "PLANTSTORE_LOG_FORMAT": "json",
        "PLANTSTORE_DATABSE_URL": "misspelt",
    }
    flask = [sys.executable, "-m", "flask", "--app", "wsgi"]
    upgrade(env["PLANTSTORE_DATABASE_URL"])  # init-db's work, in this process
    log_path = tmp_path / "worker.log"
    with open(log_path, "ab") as log:
        worker = subprocess.Popen([*flask, "webhooks", "run"], cwd=ROOT, env=env, stderr=log)
    try:
        wait_for(lambda: "Delivering webhooks" in log_path.read_text(), 30, "its start")
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=10) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    messages = [record["message"] for record in json_lines(log_path.read_text())]
    assert any("PLANTSTORE_DATABSE_URL" in message for message in messages)
    assert messages[-1] == "Webhook worker stopped."
