"""`pip install .` and the `plantstore` command; `honcho` running Procfile.dev."""

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import zipfile

import pytest

from harness.client import http_request
from harness.processes import ROOT, free_port, wait_for

pytestmark = pytest.mark.e2e

# What a checkout holds that is no part of the source.
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", "instance"
)


@pytest.fixture
def clean_env(tmp_path):
    """The environment less every PLANTSTORE_* variable, on a fresh SQLite file."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PLANTSTORE_")}
    env["PLANTSTORE_DATABASE_URL"] = f"sqlite:///{tmp_path / 'plantstore.sqlite'}"
    return env


@pytest.fixture
def wheel(tmp_path):
    """The wheel `pip wheel` builds from a copy of the checkout's source."""
    source, wheels = tmp_path / "source", tmp_path / "wheels"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    subprocess.run([*build, "-w", wheels, source], check=True)
    (built,) = wheels.glob("plantstore-*.whl")
    return built


def test_wheel_installs_the_service_and_the_plantstore_command(wheel, tmp_path, clean_env):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"app", wheel.name.split("-py3")[0] + ".dist-info"}  # no tests, bench, wsgi
    shipped = {"app/plants/store.py", "app/openapi/docs_assets/index.html"}
    assert shipped | {"app/database/migrations/env.py"} <= set(names)
    venv = tmp_path / "venv"
    # Without a pip of its own (seconds of CPU to install): the suite's pip installs into it.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    # The dependencies are the suite's own, seen through a .pth file: pip still holds every pin
    # of the wheel against them, and the install takes seconds rather than a minute of CPU.
    (site_packages,) = venv.glob("lib/python*/site-packages")
    (site_packages / "suite.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = [sys.executable, "-m", "pip", "--python", venv / "bin" / "python"]
    subprocess.run([*pip, "install", "-q", "--disable-pip-version-check", wheel], check=True)

    def plantstore(*args):
        # Run outside the checkout, so that only the installed package can answer.
        return subprocess.run(
            [venv / "bin" / "plantstore", *args],
            cwd=tmp_path,
            env=clean_env,
            capture_output=True,
            text=True,
        )

    shown = plantstore("--help")
    assert shown.returncode == 0, shown.stderr
    for command in ("init-db", "tokens", "webhooks", "run"):
        assert command in shown.stdout
    early = plantstore("tokens", "list")  # before init-db: told what to run, by this name
    assert early.returncode == 1
    assert "run `plantstore init-db`" in early.stderr
    created = plantstore("init-db")
    assert created.returncode == 0, created.stderr
    assert "ready" in created.stdout
    assert plantstore("tokens", "create", "ci").stdout.splitlines()[-1].startswith("pst_")


def test_honcho_runs_procfile_dev_and_keeps_serving(tmp_path, clean_env):
    port = free_port()
    log_path = tmp_path / "honcho.log"
    with open(log_path, "ab") as log:
        honcho = subprocess.Popen(
            [sys.executable, "-m", "honcho", "-f", "Procfile.dev", "start", "-p", str(port)],
            cwd=ROOT,
            env={**clean_env, "PATH": f"{os.path.dirname(sys.executable)}:{clean_env['PATH']}"},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:

        def serving():
            try:
                return http_request(port, "GET", "/healthz").status == 200
            except OSError:
                return False

        wait_for(serving, 60, lambda: f"the web process to serve; log:\n{log_path.read_text()}")
        # The loopback alone, not every interface, which PORT alone would have gunicorn bind.
        assert f"Listening at: http://127.0.0.1:{port} " in log_path.read_text()
        wait_for(lambda: "Delivering webhooks" in log_path.read_text(), 30, "the worker")
        # Every process is up; one that exits now would take the others with it.
        with pytest.raises(subprocess.TimeoutExpired):
            honcho.wait(timeout=2)
        assert serving()
        assert "exited" not in log_path.read_text()
    finally:
        os.killpg(honcho.pid, signal.SIGTERM)
        honcho.wait(timeout=30)
