"""A refused start, seen as one line: of a real process (gunicorn, a `flask` command, the
webhook worker), or of the same code in the test's process, which costs no process importing
the app for each case."""

import os
import runpy
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner
from flask.cli import cli as flask_cli

from app import database
from harness.processes import ROOT

FLASK = [sys.executable, "-m", "flask", "--app", "wsgi"]
PLANTSTORE = [sys.executable, "-m", "app"]  # what the installed `plantstore` command runs
GUNICORN = [sys.executable, "-m", "gunicorn", "wsgi:app"]
# What no line may show: secrets, and the passwords in URLs (test_config's bad values).
NEVER_SHOWN = (
    "short-static-token",
    "db-password",
    "hook-password",
    "hook-token",
    "short-metrics-token",
    "redis-password",
    "short-fernet-key",
)
# A refusal comes before anything touches the database or the network.
REFUSAL_SECONDS = 10


def run(args, env, timeout=60):
    """Run a command from the project root; return the finished process, output as text."""
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def assert_one_line(result, *names):
    """A non-zero exit with exactly one line on standard error, naming each of names."""
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in lines[0]
    for name in names:
        assert name in lines[0]
    return lines[0]


def _checked(args, returncode, output, started):
    # Every refusal: within the bound, one line, an error's, and no secret in it.
    assert time.monotonic() - started < REFUSAL_SECONDS
    line = assert_one_line(subprocess.CompletedProcess(args, returncode, "", output))
    assert line.startswith("Error: ")
    for secret in NEVER_SHOWN:
        assert secret not in line
    return line


def refused(args, env):
    """Run a command that must refuse its settings; its one line, checked, within the bound."""
    started = time.monotonic()
    result = run(args, env, timeout=REFUSAL_SECONDS * 2)
    # gunicorn writes its own lines to standard output, the app's to standard error: both count.
    return _checked(args, result.returncode, result.stdout + result.stderr, started)


def refused_here(args, env, command=None):
    """refused() for `flask --app wsgi ARGS`, or ARGS of command (the plantstore one), run in
    this process as the command runs it (flask's importing wsgi afresh under env)."""
    if command is None:
        command, args = flask_cli, ["--app", "wsgi", *args]
    unset = {key: None for key in os.environ if key not in env}
    sys.modules.pop("wsgi", None)  # an app made here earlier, under other settings
    started = time.monotonic()
    try:
        result = CliRunner().invoke(command, args, env={**env, **unset, "FLASK_RUN_FROM_CLI": None})
    finally:
        made = sys.modules.pop("wsgi", None)  # nor is this test's app left to a later one
        if made is not None:
            database.of(made.app).dispose()  # its connections closed, not collected
    # What click's main does on a ClickException: no other exception escaped (a traceback).
    assert isinstance(result.exception, SystemExit), result.exc_info
    return _checked(args, result.exit_code, result.output, started)


def gunicorn_refused_here(env, monkeypatch, metrics_dir):
    """refused() for gunicorn, in this process: its settings file, run as gunicorn runs it
    before anything else, under env; SystemExit's text is the line gunicorn would print."""
    for key in set(os.environ) - set(env):
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    # Set, so that the file does not set one of its own in this process's environment for good.
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(metrics_dir))
    started = time.monotonic()
    with pytest.raises(SystemExit) as stopped:
        runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    return _checked("gunicorn", 1, f"{stopped.value.code}\n", started)
