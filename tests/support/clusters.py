"""What the cases on PostgreSQL clusters share: an app on a cluster's URL, its feed and creates
through the test client, a dump restored into another cluster, and a transaction counter
moved on."""

import subprocess

import psycopg
from sqlalchemy.engine import make_url

from app import create_app
from support.live_endpoints import ENDPOINT_SETTINGS
from support.local_servers import postgres_bin_dir
from support.tokens import TOKEN

READER = {"Authorization": f"Bearer {TOKEN}"}


def driver_url(url):
    """url as psycopg and PostgreSQL's programs take it."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def app_on(url):
    """An app on url, delivering to endpoints on 127.0.0.1 fast."""
    config = {"TESTING": True, "DATABASE_URL": url, "API_TOKENS": TOKEN}
    return create_app({**config, **ENDPOINT_SETTINGS})


def feed(client, query=""):
    """The events of a page of the feed, which must be a 200."""
    response = client.get(f"/events{query}", headers=READER)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def create(client, *plant_ids):
    """Create a plant of each id through client; each must be a 200."""
    for plant_id in plant_ids:
        response = client.post("/plants", json={"id": plant_id, "name": "Fern"}, headers=READER)
        assert response.status_code == 200


def program(name):
    """The path of one of PostgreSQL's programs."""
    return str(postgres_bin_dir() / name)


def copy_database(source_url, target_url):
    """pg_dump the database of source_url and restore it into target_url's."""
    dump = subprocess.run(
        [program("pg_dump"), "--no-owner", "-d", driver_url(source_url)],
        capture_output=True,
        check=True,
    ).stdout
    restore = [program("psql"), "-q", "-v", "ON_ERROR_STOP=1", "-d", driver_url(target_url)]
    subprocess.run(restore, input=dump, capture_output=True, check=True)


def burn_to(url, target):
    """Commit transactions on url until one's id is target or more."""
    with psycopg.connect(driver_url(url), autocommit=True) as conn:
        while conn.execute("SELECT pg_current_xact_id()::text::bigint").fetchone()[0] < target:
            pass
