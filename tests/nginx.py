"""Real nginx with deploy/nginx.conf, in front of gunicorn instances, for end-to-end tests."""

import os
import re
import shutil
import subprocess

from liveserver import ROOT, free_port, http_request, wait_for

MAIN = """
{user}
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{}}
http {{
    access_log {dir}/access.log;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/plantstore.conf;
}}
"""


def binary():
    """nginx's executable, or None where Debian's nginx-light is not installed."""
    if shutil.which("nginx"):
        return shutil.which("nginx")
    return "/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None


def render_site(port, upstream_ports, read_timeout=None):
    """deploy/nginx.conf with this test's listening port and upstream instances, and how long
    nginx waits for an instance's answer when read_timeout (seconds) is given."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    if read_timeout is not None:
        site = site.replace(
            "proxy_pass http://plantstore;",
            f"proxy_pass http://plantstore;\n        proxy_read_timeout {read_timeout}s;",
        )
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    servers = "".join(f"    server 127.0.0.1:{upstream};\n" for upstream in upstream_ports)
    site, count = re.subn(r"(    server 127\.0\.0\.1:\d+;\n)+", servers, site)
    assert count == 1, "deploy/nginx.conf no longer has the upstream lines this test replaces"
    return site


class Nginx:
    """One nginx master serving from folder, started by start() and ended by stop()."""

    def __init__(self, folder):
        self.folder = folder
        self.port = free_port()
        self.process = None

    def start(self, upstream_ports, read_timeout=None):
        """Start in front of upstream_ports; return the port once it answers."""
        self.folder.mkdir()
        site = render_site(self.port, upstream_ports, read_timeout)
        (self.folder / "plantstore.conf").write_text(site)
        user = "user root;" if os.geteuid() == 0 else ""
        (self.folder / "nginx.conf").write_text(MAIN.format(dir=self.folder, user=user))
        config = str(self.folder / "nginx.conf")
        self.process = subprocess.Popen([binary(), "-p", str(self.folder), "-c", config])
        wait_for(self._up, 15, lambda: (self.folder / "error.log").read_text())
        return self.port

    def stop(self):
        """Stop nginx and wait for it."""
        self.process.terminate()
        self.process.wait(timeout=15)

    def _up(self):
        try:
            http_request(self.port, "GET", "/healthz")
        except OSError:
            return False
        return True
