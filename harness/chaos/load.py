"""The run's clients: a few threads that create, change (with If-Match) and delete plants on
either host, each request's outcome and times kept; and a follower of the feed on each host,
every event it was shown kept in order, and read again from its start on a 410."""

import random
import threading
import time

from harness.client import CONNECTION_ERRORS
from support.feed_pages import next_link

CLIENTS = 4
# Seconds between a client's requests: creates stay below the throttled endpoint's rate.
PACE = 0.2
# Seconds a follower waits after a page that brought nothing new, or a failed one.
FOLLOW_PACE = 0.2
FIRST_PAGE = "/events?limit=100"


class Load:
    """CLIENTS clients and a follower per host. ``ops`` holds each request of the clients as
    a dict (kind, host, plant, name, start, end, status: None without an answer), and each
    page a follower was refused as one of kind "follow"; ``feeds`` each follower's readings
    of the feed, a new one begun on each 410, each the events it was shown in order."""

    def __init__(self, hosts, seed):
        self.hosts = hosts
        self.seed = seed
        self.ops = []
        self.feeds = {host.name: [[]] for host in hosts}
        self._changing, self._following = threading.Event(), threading.Event()
        self._clients = [
            threading.Thread(target=self._client, args=(number,), daemon=True)
            for number in range(CLIENTS)
        ]
        self._followers = [
            threading.Thread(target=self._follow, args=(host,), daemon=True) for host in hosts
        ]

    def start(self):
        """Start the clients and the followers."""
        self._changing.set()
        self._following.set()
        for thread in self._clients + self._followers:
            thread.start()

    def stop_changes(self):
        """Stop the clients; return once none has a request open."""
        self._changing.clear()
        for thread in self._clients:
            thread.join()

    def stop_following(self):
        """Stop the followers once each has read the feed to its end."""
        self._following.clear()
        for thread in self._followers:
            thread.join()

    def _request(self, rng, kind, plant, name, method, path, body=None, headers=None):
        # One request to a host picked at random, kept in ops; (status, response or None).
        host = rng.choice(self.hosts)
        op = {"kind": kind, "host": host.name, "plant": plant, "name": name}
        op["start"] = time.time()
        try:
            response = host.server.request(method, path, body, headers)
        except CONNECTION_ERRORS:
            response = None
        op["end"] = time.time()
        op["status"] = response and response.status
        self.ops.append(op)
        time.sleep(PACE)
        return op["status"], response

    def _client(self, number):
        rng = random.Random(f"{self.seed}-client-{number}")
        plant = (number + 1) * 10**9
        while self._changing.is_set():
            plant += 1
            self._life(rng, plant)

    def _life(self, rng, plant):
        # A plant created, changed a few times, deleted; each step retried until it answers.
        created = f"plant {plant}"
        body = {"id": plant, "name": created}
        while self._changing.is_set():
            if self._request(rng, "create", plant, created, "POST", "/plants", body)[0] == 200:
                break
        for change in range(rng.randint(0, 3)):
            self._change(rng, plant, f"plant {plant} v{change}")
        while self._changing.is_set():
            path = f"/plants/{plant}"
            if self._request(rng, "delete", plant, None, "DELETE", path)[0] in (204, 404):
                return

    def _change(self, rng, plant, name):
        # Read the version, then PATCH from it; once, whatever the outcome.
        path = f"/plants/{plant}"
        status, response = self._request(rng, "read", plant, None, "GET", path)
        if status != 200 or not self._changing.is_set():
            return
        headers = {"If-Match": response.headers["ETag"]}
        self._request(rng, "patch", plant, name, "PATCH", path, {"name": name}, headers)

    def _follow(self, host):
        link, readings = FIRST_PAGE, self.feeds[host.name]
        while True:
            following = self._following.is_set()
            response = self._page(host, link)
            if response is not None and response.status == 410:
                # The contract's answer to an after the server never saw: read it all again.
                link = FIRST_PAGE
                readings.append([])
            if response is None or response.status != 200:
                time.sleep(FOLLOW_PACE)
                continue
            events = response.json()
            readings[-1].extend(events)
            link = next_link(response)
            if not events and not following:
                return
            if not events:
                time.sleep(FOLLOW_PACE)

    def _page(self, host, link):
        # One page of the feed; a refused one (or none) kept in ops.
        op = {"kind": "follow", "host": host.name, "plant": None, "name": link}
        op["start"] = time.time()
        try:
            response = host.server.request("GET", link, token=host.server.token)
        except CONNECTION_ERRORS:
            response = None
        op["end"] = time.time()
        op["status"] = response and response.status
        if op["status"] != 200:
            self.ops.append(op)
        return response
