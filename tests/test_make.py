"""The Makefile's targets a newcomer runs first, as processes: `make test-tools` as root says
what it installs before apt-get runs."""

import shutil
import subprocess
import time

import pytest

from harness.processes import ROOT

pytestmark = pytest.mark.e2e

MAKE = shutil.which("make")
# A recipe that only looks for programs and echoes ends at once.
RECIPE_SECONDS = 10


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


@pytest.mark.skipif(MAKE is None, reason="needs make")
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
