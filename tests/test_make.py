"""The Makefile's targets a newcomer runs first: `make run` announces where it serves once
gunicorn answers, refuses a bad or busy port at once in one line, and reuses its development
token (harness/dev_server.py); `make test-tools` as root says what it installs before apt-get
runs. As processes, but for the token's keeping."""

import datetime
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time

import pytest

from app import database
from app.tokens import store as token_store
from harness.client import http_request
from harness.dev_server import dev_token
from harness.processes import ROOT, free_port, spawn, wait_for
from support.tokens import TOKEN

MAKE = shutil.which("make")
needs_make = pytest.mark.skipif(MAKE is None, reason="needs make")
# A recipe that only looks for programs and echoes ends at once.
RECIPE_SECONDS = 10
# A refusal of make run comes before any server or command starts: the app's import, at most.
REFUSED_WITHIN = 5
# The suite's venv, built already: make is not to build it again (-o), but to use it.
VENV = os.path.dirname(os.path.dirname(sys.executable))
MAKE_RUN = [MAKE, "--no-print-directory", "-o", f"{VENV}/.runtime", f"VENV={VENV}", "run"]


@pytest.fixture
def run_env(tmp_path):
    """make run's environment: a fresh SQLite file, the test token as a static one (so that no
    development token is kept in the checkout), and no make of the suite's around it."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PLANTSTORE_", "MAKE", "MFLAGS"))
    }
    env["PLANTSTORE_DATABASE_URL"] = f"sqlite:///{tmp_path / 'plantstore.sqlite'}"
    env["PLANTSTORE_API_TOKENS"] = TOKEN
    return env


def _refusal(run_env, port):
    started = time.monotonic()
    result = subprocess.run(
        [*MAKE_RUN, f"PORT={port}"],
        cwd=ROOT,
        env=run_env,
        capture_output=True,
        text=True,
        timeout=REFUSED_WITHIN * 4,
    )
    assert time.monotonic() - started < REFUSED_WITHIN
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "Database schema" not in output and "Serving on" not in output  # nothing started
    (error,) = [line for line in output.splitlines() if line.startswith("Error:")]
    return error, output


@pytest.mark.e2e
@needs_make
@pytest.mark.parametrize("port", ["abc", "0", "70000"])
def test_make_run_refuses_a_bad_port_in_one_line_before_anything_starts(run_env, port):
    error, _output = _refusal(run_env, port)
    assert error == f"Error: PORT must be a port number from 1 to 65535, not '{port}'"


@pytest.mark.e2e
@needs_make
def test_make_run_on_a_busy_port_fails_at_once_in_one_line(run_env):
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        error, output = _refusal(run_env, port)
    assert error.startswith(f"Error: 127.0.0.1:{port} is in use: stop what listens there")
    assert "Connection in use" not in output


@pytest.mark.e2e
@needs_make
def test_make_run_announces_once_gunicorn_answers_and_stops_at_ctrl_c(run_env, tmp_path):
    port = free_port()
    log_path = tmp_path / "make-run.log"
    with open(log_path, "ab") as log:
        make = spawn([*MAKE_RUN, f"PORT={port}"], run_env, log)
    try:
        wait_for(lambda: "Serving on" in log_path.read_text(), 60, log_path.read_text)
        log = log_path.read_text()
        # gunicorn had bound the port and booted a worker (which its answer needs) before.
        announced = log.index(f"Serving on http://127.0.0.1:{port}. Try:")
        assert log.index(f"Listening at: http://127.0.0.1:{port} ") < announced
        assert log.index("Booting worker") < announced
        assert f"Bearer {TOKEN}" in log
        plant = {"id": 1, "name": "Monstera", "tag": "tropical"}
        created = http_request(port, "POST", "/plants", plant, {"Authorization": f"Bearer {TOKEN}"})
        assert created.status == 200
        wait_for(lambda: "Delivering webhooks" in log_path.read_text(), 30, "the worker")
    finally:
        os.killpg(make.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole group
        make.wait(timeout=30)
    with pytest.raises(ProcessLookupError):
        os.killpg(make.pid, 0)  # gunicorn and the worker are gone with it


def test_the_dev_token_is_kept_private_and_reused_while_the_service_takes_it(app, tmp_path):
    path = tmp_path / "instance" / "dev-token"
    token = dev_token(app, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == token + "\n"
    response = app.test_client().get("/plants", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert dev_token(app, path) == token
    db = database.of(app)
    (issued,) = token_store.list_all(db)
    assert issued.name.startswith("dev-")
    valid_for = issued.expires_at - issued.created_at
    assert abs(valid_for - datetime.timedelta(days=1)) < datetime.timedelta(minutes=1)
    token_store.revoke(db, issued.name)
    renewed = dev_token(app, path)
    assert renewed != token and path.read_text() == renewed + "\n"


def test_a_dev_token_file_the_service_does_not_know_is_replaced_and_made_private(app, tmp_path):
    path = tmp_path / "dev-token"
    path.write_text("pst_unknown\n")
    path.chmod(0o644)
    token = dev_token(app, path)
    assert token != "pst_unknown" and path.read_text() == token + "\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def _stub(folder, name, script):
    path = folder / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)


@pytest.fixture
def as_root_with_nothing(tmp_path):
    """A PATH whose id says root, whose apt-get only says how it was called, and on which no
    program the suite needs is found (but for /usr/sbin's, which the recipe adds)."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    _stub(stubs, "id", "echo 0")
    _stub(stubs, "ls", "exit 2")
    _stub(stubs, "apt-get", 'echo "apt-get $*"')
    return {"PATH": str(stubs), "HOME": str(tmp_path)}


@pytest.mark.e2e
@needs_make
def test_test_tools_as_root_names_the_packages_before_apt_get_installs_them(
    as_root_with_nothing,
):
    started = time.monotonic()
    result = subprocess.run(
        [MAKE, "--no-print-directory", "test-tools"],
        cwd=ROOT,
        env=as_root_with_nothing,
        capture_output=True,
        text=True,
        timeout=RECIPE_SECONDS,
    )
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < RECIPE_SECONDS
    said, update, install = result.stdout.splitlines()
    announced = said.removeprefix("Installing with apt-get, as make runs as root:").split()
    assert said.startswith("Installing with apt-get, as make runs as root:")
    assert {"postgresql", "redis-server", "chromium"} <= set(announced)
    assert update == "apt-get update -qq"
    assert install.split() == ["apt-get", "install", "-y", "-qq", *announced]
