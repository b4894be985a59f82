"""`make run`: check HOST and PORT, migrate, find the development token, start the webhook
worker and gunicorn, and say where it serves once gunicorn answers; Ctrl-C stops them both.

Run as ``python -m harness.dev_server HOST PORT`` from the checkout, with the venv's python.

The app is imported only once the port is found good and free, by the functions that need it:
its import is most of a second, which a refusal need not wait for.
"""

import contextlib
import datetime
import errno
import http.client
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

from harness.client import CONNECTION_ERRORS
from harness.processes import ROOT

BIN = pathlib.Path(sys.executable).parent
# Longest wait for gunicorn to answer /livez once started, in seconds.
SERVE_TIMEOUT = 30
# Longest wait for the worker and gunicorn to stop once asked: gunicorn's graceful_timeout, and
# a little more.
STOP_TIMEOUT = 25
# Where the development token is kept: the Flask instance folder, beside the default database.
TOKEN_FILE = "dev-token"


class Refused(Exception):
    """A reason not to start, said in one line."""


def port_of(text):
    """PORT as a number; Refused in the words gunicorn.conf.py uses for a bad one."""
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= 65535):
        raise Refused(f"PORT must be a port number from 1 to 65535, not {text!r}")
    return int(text)


def check_free(host, port):
    """Refused unless a server may listen on host:port now: gunicorn would retry a busy one
    for five seconds, then end with a line that does not say which port."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.create_server((host, port), family=family):
            pass
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise Refused(
                f"{host}:{port} is in use: stop what listens there, or choose another port "
                f"(make run PORT={port + 1 if port < 65535 else 8000})"
            ) from None
        raise Refused(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


def dev_token(app, path):
    """The token kept at path while the service still takes it; else a new one, valid for a
    day, kept there instead (mode 0600: its text is stored nowhere else)."""
    from app import database
    from app.auth import READ_WRITE
    from app.tokens import store
    from app.tokens.cli import issue
    from app.tokens.lookup import token_hash

    db = database.of(app)
    kept = path.read_text().strip() if path.exists() else ""
    if kept and store.find_live(db, token_hash(kept)) is not None:
        return kept
    now = database.utcnow()
    name = f"dev-{now:%Y%m%d-%H%M%S.%f}"
    token = issue(db, name, READ_WRITE, now + datetime.timedelta(days=1))
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # a file that existed keeps its mode through O_CREAT
    with os.fdopen(descriptor, "w") as file:
        file.write(token + "\n")
    return token


def token_to_show():
    """PLANTSTORE_API_TOKENS' first token, or the development token of the instance folder."""
    static = os.environ.get("PLANTSTORE_API_TOKENS", "")
    if static:
        return static.split(",")[0].strip()
    from app import create_app, database

    app = create_app()
    try:
        return dev_token(app, pathlib.Path(app.instance_path) / TOKEN_FILE)
    finally:
        database.of(app).dispose()


def answering(host, port):
    """Whether GET /livez on host:port answers 200 (the wildcard address by the loopback)."""
    target = "127.0.0.1" if host in ("0.0.0.0", "") else "::1" if host == "::" else host
    connection = http.client.HTTPConnection(target, port, timeout=2)
    try:
        connection.request("GET", "/livez")
        return connection.getresponse().status == 200
    except CONNECTION_ERRORS:
        return False
    finally:
        connection.close()


def wait_serving(gunicorn, host, port):
    """Return once gunicorn answers; Refused when it exits first or outlasts SERVE_TIMEOUT."""
    deadline = time.monotonic() + SERVE_TIMEOUT
    while not answering(host, port):
        if gunicorn.poll() is not None:
            raise Refused(f"gunicorn stopped before it served (exit {gunicorn.returncode})")
        if time.monotonic() > deadline:
            raise Refused(f"gunicorn did not answer on {host}:{port} within {SERVE_TIMEOUT}s")
        time.sleep(0.1)


def announce(host, port, token):
    """Where it serves, and a curl line to paste."""
    url = f"http://{host}:{port}"
    print(f"Serving on {url}. Try:")
    print(f"  curl -i -H 'Authorization: Bearer {token}' -H 'Content-Type: application/json' \\")
    print(
        f"""       -d '{{"id": 1, "name": "Monstera", "tag": "tropical"}}' {url}/plants""",
        flush=True,
    )


def stop(process, how):
    """Ask process to stop with signal how; kill it after STOP_TIMEOUT."""
    if process.poll() is None:
        process.send_signal(how)
    try:
        process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def serve(host, port, token):
    """Start the worker and gunicorn; announce once gunicorn answers; gunicorn's exit status
    once it stops, the worker stopped with it."""
    flask = [str(BIN / "flask"), "--app", "wsgi"]
    env = {**os.environ, "PORT": str(port)}
    worker = subprocess.Popen([*flask, "webhooks", "run"], cwd=ROOT, env=env)
    with contextlib.ExitStack() as stack:
        stack.callback(stop, worker, signal.SIGTERM)
        command = [str(BIN / "gunicorn"), "--bind", f"{host}:{port}", "wsgi:app"]
        gunicorn = subprocess.Popen(command, cwd=ROOT, env=env)
        # Quick shutdown: a graceful one would wait for connections a client left idle.
        stack.callback(stop, gunicorn, signal.SIGINT)
        wait_serving(gunicorn, host, port)
        announce(host, port, token)
        return gunicorn.wait()


def main(host, port_text):
    """make run's steps, each refusal in one line; the exit status."""
    # SIGTERM (a supervisor, a test) stops the children as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        port = port_of(port_text)
        check_free(host, port)
        subprocess.run([str(BIN / "flask"), "--app", "wsgi", "init-db"], cwd=ROOT, check=True)
        return serve(host, port, token_to_show())
    except Refused as refused:
        print(f"Error: {refused}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as failed:
        return failed.returncode  # init-db said why
    except KeyboardInterrupt:
        return 128 + signal.SIGINT


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
