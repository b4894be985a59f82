"""Settings checked once at start-up: a bad one stops every command and the server, in one line."""

import logging
import subprocess
import sys

import pytest

from app.config import ConfigError
from helpers import TOKEN
from liveserver import ROOT, free_port

# Each bad setting, and what its one line must name.
BAD_SETTINGS = [
    pytest.param(
        {"PLANTSTORE_DATABASE_POOL_SIZE": "many"}, "PLANTSTORE_DATABASE_POOL_SIZE", id="not an int"
    ),
    pytest.param(
        {"PLANTSTORE_MAX_CONTENT_LENGTH": "0"}, "PLANTSTORE_MAX_CONTENT_LENGTH", id="out of range"
    ),
    pytest.param(
        {"PLANTSTORE_SQLITE_SYNCHRONOUS": "OFF"}, "PLANTSTORE_SQLITE_SYNCHRONOUS", id="not a choice"
    ),
    pytest.param(
        {"PLANTSTORE_DATABASE_URL": "mysql://db/x"}, "PLANTSTORE_DATABASE_URL", id="other database"
    ),
    pytest.param({"PLANTSTORE_API_TOKENS": "too-short"}, "PLANTSTORE_API_TOKENS", id="short token"),
    pytest.param({"PLANTSTORE_LOG_FORMAT": "xml"}, "PLANTSTORE_LOG_FORMAT", id="log format"),
    pytest.param(
        {"PLANTSTORE_METRICS_TOKEN": "short"}, "PLANTSTORE_METRICS_TOKEN", id="short metrics token"
    ),
    pytest.param(
        {"PLANTSTORE_WEBHOOK_URLS": "ftp://x/hook"}, "PLANTSTORE_WEBHOOK_URLS", id="webhook url"
    ),
]


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


FLASK = [sys.executable, "-m", "flask", "--app", "wsgi"]
PLANTSTORE = [sys.executable, "-m", "app"]  # what the installed `plantstore` command runs


@pytest.mark.parametrize("command", [FLASK, PLANTSTORE], ids=["flask", "plantstore"])
@pytest.mark.parametrize(("settings", "variable"), BAD_SETTINGS)
def test_bad_setting_stops_a_command_with_one_line(environment, command, settings, variable):
    result = run([*command, "init-db"], {**environment, **settings})
    assert_one_line(result, variable)
    assert result.stdout == ""


def test_bad_setting_stops_gunicorn_with_one_line(environment):
    env = {**environment, "PLANTSTORE_DATABASE_POOL_SIZE": "many", "PORT": str(free_port())}
    result = run([sys.executable, "-m", "gunicorn", "wsgi:app"], env, timeout=30)
    line = assert_one_line(
        subprocess.CompletedProcess(
            result.args, result.returncode, "", result.stdout + result.stderr
        ),
        "PLANTSTORE_DATABASE_POOL_SIZE",
        "'many'",
    )
    assert "Worker failed to boot" not in line


def test_unopenable_sqlite_file_is_one_line(environment, tmp_path):
    url = f"sqlite:///{tmp_path / 'no-such-folder' / 'plantstore.sqlite'}"
    result = run([*FLASK, "init-db"], {**environment, "PLANTSTORE_DATABASE_URL": url})
    assert_one_line(result, "database unavailable", "PLANTSTORE_DATABASE_URL", url)


def test_unreachable_postgresql_is_one_line(environment):
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/plantstore"
    result = run([*FLASK, "tokens", "list"], {**environment, "PLANTSTORE_DATABASE_URL": url})
    assert_one_line(result, "database unavailable", "PLANTSTORE_DATABASE_URL", url)


@pytest.mark.parametrize(
    "args",
    [("tokens", "create", "ci"), ("tokens", "list"), ("webhooks", "status")],
    ids=" ".join,
)
def test_command_before_init_db_is_one_line_saying_what_to_do(database_url, environment, args):
    env = {**environment, "PLANTSTORE_DATABASE_URL": database_url}
    line = assert_one_line(run([*FLASK, *args], env))
    assert "database schema is not initialised or out of date" in line
    assert "run `flask --app wsgi init-db`" in line


def test_unknown_variable_is_a_warning_naming_the_closest_setting(make_app, monkeypatch, caplog):
    monkeypatch.setenv("PLANTSTORE_DATABSE_URL", "sqlite:///elsewhere.sqlite")
    with caplog.at_level(logging.WARNING):
        make_app()
    (warning,) = [
        r.getMessage() for r in caplog.records if "PLANTSTORE_DATABSE_URL" in r.getMessage()
    ]
    assert "did you mean PLANTSTORE_DATABASE_URL?" in warning


@pytest.mark.parametrize("token", ["x" * 31, "pst_" + "a" * 27])
def test_static_token_shorter_than_32_characters_is_refused(make_app, token):
    with pytest.raises(ConfigError, match="PLANTSTORE_API_TOKENS") as refused:
        make_app(API_TOKENS=f"{TOKEN},{token}")
    assert token not in str(refused.value)  # the message may reach a log: no secret in it


def test_static_token_of_32_characters_is_accepted(make_app):
    token = "y" * 32
    client = make_app(API_TOKENS=token).test_client()
    assert client.get("/plants", headers={"Authorization": f"Bearer {token}"}).status_code == 200
