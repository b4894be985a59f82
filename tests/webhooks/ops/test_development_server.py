"""`flask run` says, in one line at its start, that the webhook worker is a command of its own;
no other command, gunicorn or app made in a test says it."""

import pytest
from click.testing import CliRunner
from flask import cli as flask_cli

pytestmark = pytest.mark.backend_independent

NOTE = "This server delivers no webhooks: the worker is a command of its own, `{} webhooks run`."


@pytest.fixture
def served(monkeypatch):
    """The calls of Werkzeug's server that `flask run` made, none of them serving."""
    calls = []
    monkeypatch.setattr(flask_cli, "run_simple", lambda *args, **kwargs: calls.append(args))
    return calls


@pytest.fixture
def invoke(make_app):
    """Run a command of a group that loads make_app's app as `flask --app wsgi` loads wsgi's."""

    def invoke(*args, name="flask"):
        group = flask_cli.FlaskGroup(name=name, create_app=make_app)
        result = CliRunner().invoke(group, list(args))
        assert result.exit_code == 0, result.output
        return result

    return invoke


@pytest.mark.parametrize("name", ["flask", "plantstore"])
def test_flask_run_says_once_that_the_worker_is_a_command_of_its_own(served, invoke, name):
    result = invoke("run", "--port", "0", name=name)
    assert len(served) == 1
    assert result.stderr.splitlines().count(NOTE.format(name)) == 1


def test_the_reloaders_child_says_nothing(served, invoke, monkeypatch):
    monkeypatch.setenv("WERKZEUG_RUN_MAIN", "true")
    result = invoke("run", "--port", "0")
    assert len(served) == 1
    assert "webhooks run" not in result.output


def test_other_commands_and_apps_made_outside_a_command_say_nothing(invoke, make_app, capsys):
    assert "webhooks run" not in invoke("routes").output
    make_app()  # as gunicorn's workers and the tests make it
    assert "webhooks run" not in "".join(capsys.readouterr())
