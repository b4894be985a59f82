"""`make client`: regenerate clients/python from the service's OpenAPI document.

The document comes from the app itself, no server running, served as from one fixed URL so that
the client never depends on where it was made. openapi-python-client (pinned in
tests/requirements.txt) writes the client, and its hooks format it with the pinned ruff.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from app import create_app

HERE = pathlib.Path(__file__).resolve().parent
CLIENT = HERE / "python"
CONFIG = HERE / "openapi-python-client.yml"
# Our README for the client, in place of the generator's (which is about publishing with Poetry).
TEMPLATES = HERE / "templates"
# The document's servers entry is the URL it was served from.
BASE_URL = "http://localhost"


def document(folder):
    """The OpenAPI document as the service serves it, from an app on an unused database."""
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{folder / 'unused.sqlite'}"})
    response = app.test_client().get("/openapi.json", base_url=BASE_URL)
    if response.status_code != 200:
        raise RuntimeError(f"GET /openapi.json answered {response.status}")
    return response.get_data()


def generate(output):
    """Write the client that the document makes into output, a folder that does not exist."""
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "openapi.json"
        path.write_bytes(document(pathlib.Path(folder)))
        # The hooks run the ruff on PATH: make it this environment's.
        path_variable = os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]])
        command = [sys.executable, "-m", "openapi_python_client", "generate", "--path", path]
        command += ["--config", CONFIG, "--custom-template-path", TEMPLATES]
        command += ["--output-path", output, "--fail-on-warning"]
        subprocess.run(command, check=True, env={**os.environ, "PATH": path_variable})


def main():
    """Replace clients/python whole with a fresh client, so no file of an old one lingers."""
    with tempfile.TemporaryDirectory() as folder:
        fresh = pathlib.Path(folder) / "python"
        generate(fresh)
        shutil.rmtree(CLIENT, ignore_errors=True)
        shutil.move(fresh, CLIENT)


if __name__ == "__main__":
    main()
