"""nginx with every file in one folder: deploy/nginx.conf in front of gunicorn instances, or a
site of the caller's."""

import contextlib
import os
import pathlib
import re
import shutil
import socket

from harness.processes import ROOT, START_TIMEOUT, Child, free_port, spawn, wait_for

# What Debian's /etc/nginx/nginx.conf sets around a site file, with every path in one folder.
MAIN = """
{modules}
{user}
daemon off;
worker_processes {workers};
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{
    worker_connections 768;
}}
http {{
    sendfile on;
    tcp_nopush on;
    default_type application/octet-stream;
    access_log {dir}/access.log;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/plantstore.conf;
}}
"""


# Where Debian's nginx module packages put their modules.
MODULES = pathlib.Path("/usr/lib/nginx/modules")


def binary():
    """Where nginx is installed, or None where Debian's nginx-light is not."""
    # Debian installs it in /usr/sbin, which a user's PATH may lack.
    return shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin")


def render_site(port, upstream_ports, read_timeout=None):
    """deploy/nginx.conf listening on port, with these upstream instances, and how long nginx
    waits for an instance's answer when read_timeout (seconds) is given."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    if read_timeout is not None:
        site = site.replace(
            "proxy_pass http://plantstore;",
            f"proxy_pass http://plantstore;\n        proxy_read_timeout {read_timeout}s;",
        )
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    servers = "".join(f"    server 127.0.0.1:{upstream};\n" for upstream in upstream_ports)
    site, count = re.subn(r"(    server 127\.0\.0\.1:\d+;\n)+", servers, site)
    if count != 1:
        raise AssertionError("deploy/nginx.conf no longer has the upstream lines replaced here")
    return site


class Nginx(Child):
    """One nginx master, not daemonised, serving from folder on a port of its own."""

    name = "nginx"

    def __init__(self, folder, workers=1, modules=()):
        self.folder = folder
        self.workers = workers
        # Dynamic modules to load, by file name in Debian's module folder.
        self.modules = modules
        self.port = free_port()

    def start(self, site):
        """Serve site (an nginx server block); return once it listens on port."""
        self.folder.mkdir()
        (self.folder / "plantstore.conf").write_text(site)
        user = "user root;" if os.geteuid() == 0 else ""
        modules = "".join(f"load_module {MODULES / name};\n" for name in self.modules)
        main = MAIN.format(dir=self.folder, user=user, workers=self.workers, modules=modules)
        (self.folder / "nginx.conf").write_text(main)
        conf, error_log = str(self.folder / "nginx.conf"), str(self.folder / "error.log")
        command = [binary(), "-p", str(self.folder), "-e", error_log, "-c", conf]
        self.process = spawn(command, env=None, stdout=None, stderr=None)
        wait_for(self._listening, START_TIMEOUT, lambda: f"nginx to listen; log:\n{self.log()}")

    def front(self, upstream_ports, read_timeout=None):
        """Serve deploy/nginx.conf in front of upstream_ports (see render_site); the port."""
        self.start(render_site(self.port, upstream_ports, read_timeout))
        return self.port

    def log(self):
        """nginx's error log so far."""
        return (self.folder / "error.log").read_text(errors="replace")

    def _listening(self):
        self.check_running()
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
            return True
        return False
