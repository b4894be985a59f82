"""Token lifecycle: `flask tokens create|list|revoke`, scopes and expiry."""

import datetime
import re
import time

import pytest
from sqlalchemy import select

from app import create_app, database
from app.auth import READ_WRITE
from app.database import metadata, utcnow
from app.tokens import store as token_store
from app.tokens.cli import LATEST_EXPIRY
from app.tokens.lookup import token_hash

PLANT = {"id": 1, "name": "Fern"}


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def issue(runner):
    """Run `tokens create` and return the token printed on its last line."""

    def issue(*args):
        result = runner.invoke(args=["tokens", "create", *args])
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()[-1]

    return issue


@pytest.mark.backend_independent
def test_created_token_is_printed_alone_on_the_last_line(runner):
    result = runner.invoke(args=["tokens", "create", "ci"])
    assert result.exit_code == 0
    last = result.output.splitlines()[-1]
    assert re.fullmatch(r"pst_[A-Za-z0-9_-]{43}", last)
    assert result.stdout.strip() == last


def test_created_token_works_at_once(client, issue):
    token = issue("ci")
    assert client.post("/plants", json=PLANT, headers=bearer(token)).status_code == 200
    assert client.get("/plants/1", headers=bearer(token)).status_code == 200
    assert client.delete("/plants/1", headers=bearer(token)).status_code == 204


@pytest.mark.backend_independent
def test_read_only_token_reads_but_may_not_write(client, auth_headers, issue):
    token = issue("dashboard", "--read-only")
    assert client.post("/plants", json=PLANT, headers=auth_headers).status_code == 200
    assert client.get("/plants", headers=bearer(token)).status_code == 200
    assert client.get("/plants/1", headers=bearer(token)).status_code == 200
    for response in (
        client.post("/plants", json={"id": 2, "name": "Aloe"}, headers=bearer(token)),
        client.patch("/plants/1", json={"name": "Aloe"}, headers=bearer(token)),
        client.delete("/plants/1", headers=bearer(token)),
    ):
        assert response.status_code == 403
        assert response.get_json() == {"error": 403, "message": "This token is read-only."}
    assert client.get("/plants/1", headers=bearer(token)).status_code == 200


@pytest.mark.backend_independent
def test_read_only_help_names_every_method_of_plants_it_refuses(app, runner):
    written = {
        method
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/plants")
        for method in rule.methods - {"GET", "HEAD", "OPTIONS"}
    }
    shown = runner.invoke(args=["tokens", "create", "--help"])
    assert shown.exit_code == 0, shown.output
    # The option's help, however click wraps it: the words from --read-only to the next option.
    words = " ".join(shown.output.split()).split("--read-only")[1].split("--admin")[0]
    assert written == {"POST", "PATCH", "DELETE"}
    assert all(method in words for method in written), words


@pytest.mark.backend_independent
def test_admin_token_may_do_what_read_write_may_and_use_webhooks(client, runner, issue):
    token = issue("ops", "--admin")
    read_write = issue("ci")
    assert client.post("/plants", json=PLANT, headers=bearer(token)).status_code == 200
    assert client.delete("/plants/1", headers=bearer(token)).status_code == 204
    assert client.get("/webhooks", headers=bearer(token)).status_code == 200
    assert client.get("/webhooks", headers=bearer(read_write)).status_code == 403
    listed = runner.invoke(args=["tokens", "list"]).output.splitlines()
    assert next(line.split() for line in listed if line.startswith("ops "))[1] == "admin"


@pytest.mark.backend_independent
def test_read_only_token_is_refused_before_the_body_is_read(client, issue):
    token = issue("dashboard", "--read-only")
    response = client.post("/plants", data=b"{broken", headers=bearer(token))
    assert response.status_code == 403


def test_revoked_token_is_refused_at_once(client, runner, issue):
    token = issue("laptop")
    assert client.get("/plants", headers=bearer(token)).status_code == 200
    result = runner.invoke(args=["tokens", "revoke", "laptop"])
    assert result.exit_code == 0, result.output
    response = client.get("/plants", headers=bearer(token))
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


def test_revoking_twice_is_harmless(runner, issue):
    issue("laptop")
    assert runner.invoke(args=["tokens", "revoke", "laptop"]).exit_code == 0
    assert runner.invoke(args=["tokens", "revoke", "laptop"]).exit_code == 0


def test_expired_token_is_refused(app, client):
    past = utcnow() - datetime.timedelta(seconds=1)
    token_store.create(database.of(app), "old", token_hash("pst_old"), READ_WRITE, past)
    response = client.get("/plants", headers=bearer("pst_old"))
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


def test_token_works_until_it_expires(client, issue):
    token = issue("temp", "--expires-in", "0.5")
    assert client.get("/plants", headers=bearer(token)).status_code == 200


def test_list_shows_everything_but_the_secret(runner, issue):
    token = issue("ci", "--expires-in", "30")
    issue("dashboard", "--read-only")
    runner.invoke(args=["tokens", "revoke", "dashboard"])
    result = runner.invoke(args=["tokens", "list"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["NAME", "SCOPE", "CREATED", "EXPIRES", "REVOKED"]
    ci = next(line.split() for line in lines if line.startswith("ci "))
    dashboard = next(line.split() for line in lines if line.startswith("dashboard "))
    assert ci[1] == "read-write" and ci[4] == "-"
    expires = datetime.datetime.fromisoformat(ci[3])
    assert datetime.timedelta(days=29) < expires - utcnow() < datetime.timedelta(days=31)
    assert dashboard[1] == "read-only" and dashboard[3] == "-" and dashboard[4] != "-"
    assert token not in result.output
    assert token_hash(token) not in result.output


def test_database_holds_no_token_in_plain_text(app, issue, tmp_path):
    token = issue("ci")
    db = database.of(app)
    with db.engine.connect() as conn:
        rows = repr([conn.execute(select(table)).all() for table in metadata.sorted_tables])
    db.dispose()
    files = b"".join(path.read_bytes() for path in tmp_path.glob("plantstore.sqlite*"))
    assert token_hash(token) in rows
    assert token not in rows
    assert token.encode() not in files


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("args", "says"),
    [
        pytest.param(["create", "ci"], "exists already", id="duplicate name"),
        pytest.param(["revoke", "nobody"], "no token named", id="unknown name"),
        pytest.param(["create", ""], "NAME", id="empty name"),
        pytest.param(["create", "x" * 101], "NAME", id="name too long"),
        pytest.param(["create", "new", "--expires-in", "0"], "expires-in", id="zero days"),
        pytest.param(["create", "new", "--expires-in", "-1"], "expires-in", id="negative days"),
        pytest.param(
            ["create", "new", "--read-only", "--admin"],
            "--read-only and --admin exclude each other",
            id="read-only admin",
        ),
    ],
)
def test_bad_command_fails_cleanly(runner, issue, args, says):
    issue("ci")
    result = runner.invoke(args=["tokens", *args])
    assert result.exit_code != 0
    assert says in result.output
    assert "Traceback" not in result.output


@pytest.mark.e2e
def test_token_lifecycle_against_running_gunicorn(live_server, database_url):
    server = live_server(database_url, workers=2)
    # The commands in this process: what every worker must see is what they write to the
    # database (tests/test_packaging.py runs the command as a process of its own).
    token = server.cli("tokens", "create", "live").splitlines()[-1]
    for _ in range(10):
        assert server.request("GET", "/plants", token=token).status == 200
    server.cli("tokens", "revoke", "live")
    statuses = {server.request("GET", "/plants", token=token).status for _ in range(20)}
    assert statuses == {401}


def test_times_are_listed_in_utc_whatever_the_database_zone(make_app, far_zone_url):
    runner = make_app(DATABASE_URL=far_zone_url).test_cli_runner()
    before = utcnow().replace(microsecond=0)
    assert runner.invoke(args=["tokens", "create", "zone", "--expires-in", "1"]).exit_code == 0
    after = utcnow()
    listed = runner.invoke(args=["tokens", "list"]).output
    zone = next(line.split() for line in listed.splitlines() if line.startswith("zone "))
    created, expires = (datetime.datetime.fromisoformat(value) for value in zone[2:4])
    assert before <= created <= after
    assert before + datetime.timedelta(days=1) <= expires <= after + datetime.timedelta(days=1)


@pytest.mark.parametrize("days", ["inf", "nan", "1e12", "-inf"])
def test_expiry_beyond_any_date_is_a_usage_error(tmp_path, days):
    # In this process: click decides a usage error, and what it prints, alike in a process.
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'tokens.sqlite'}"})
    started = time.monotonic()
    command = ["tokens", "create", "x", "--expires-in", days]
    result = app.test_cli_runner().invoke(args=command)
    assert time.monotonic() - started < 30
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exc_info  # no traceback
    assert "--expires-in" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_the_latest_expiry_is_listed_in_any_database_zone(make_app, far_zone_url):
    runner = make_app(DATABASE_URL=far_zone_url).test_cli_runner()
    longest = (LATEST_EXPIRY - utcnow()).days
    created = runner.invoke(args=["tokens", "create", "late", "--expires-in", str(longest)])
    assert created.exit_code == 0, created.output
    listed = runner.invoke(args=["tokens", "list"])
    assert listed.exit_code == 0, listed.output
    assert re.search(r"^late .* 9999-12-", listed.output, re.MULTILINE)
