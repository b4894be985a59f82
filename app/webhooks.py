"""Webhooks: the outbox rows a create writes, and the worker that delivers them."""

import datetime
import hashlib
import hmac
import json
import logging
import random
import signal
import threading
import uuid

import click
import httpx
from flask import current_app

from . import cli
from .database import Unavailable, get_db, utcnow
from .deadline import Deadline
from .store import deliveries as delivery_store

EVENT = "plant.created"
# Seconds a lease allows beyond the attempt and its recording, for clocks of hosts that differ.
CLOCK_MARGIN = 5
# Longest pause of a worker whose database keeps failing, seconds.
MAX_OUTAGE_PAUSE = 30


def outbox_rows(plant):
    """One pending delivery per configured receiver, announcing plant (a loaded NewPlant)."""
    urls = current_app.config["WEBHOOK_URLS"]
    if not urls:
        return []
    body = json.dumps(plant, separators=(",", ":"), ensure_ascii=False)
    now = utcnow()
    return [
        {
            "id": uuid.uuid4().hex,
            "url": url,
            "event": EVENT,
            "body": body,
            "status": delivery_store.PENDING,
            "attempts": 0,
            "created_at": now,
            "next_attempt_at": now,
        }
        for url in urls
    ]


def signature(secret, body):
    """The X-Plantstore-Signature value: HMAC-SHA256 of the exact body bytes."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class Worker:
    """Claims due deliveries one at a time, sends them, and records the outcome."""

    def __init__(self, app):
        config = app.config
        self.db = app.extensions["plantstore.db"]
        self.logger = app.logger
        self.secret = config["WEBHOOK_SECRET"]
        self.max_attempts = config["WEBHOOK_MAX_ATTEMPTS"]
        self.base_delay = config["WEBHOOK_RETRY_DELAY"]
        self.max_delay = config["WEBHOOK_RETRY_MAX_DELAY"]
        self.poll_interval = config["WEBHOOK_POLL_INTERVAL"]
        self.timeout = config["WEBHOOK_TIMEOUT"]
        # The attempt ends by its deadline and is recorded within the database timeout: no other
        # worker can claim the delivery while it is being sent.
        self.lease = datetime.timedelta(
            seconds=self.timeout + config["DATABASE_TIMEOUT"] + CLOCK_MARGIN
        )
        self.client = httpx.Client(
            timeout=httpx.Timeout(self.timeout),
            follow_redirects=False,
            # A connection per attempt, so that the attempt's deadline knows its socket.
            limits=httpx.Limits(max_keepalive_connections=0),
            headers={"User-Agent": "plantstore"},
        )

    def run(self, stop):
        """Deliver until stop (a threading.Event) is set; an attempt under way is finished.

        A database that fails pauses the worker, longer each time it fails again, and never
        stops it.
        """
        failures = 0
        while not stop.is_set():
            try:
                busy = self.deliver_one()
            except Unavailable as error:
                failures += 1
                pause = min(MAX_OUTAGE_PAUSE, self.poll_interval * 2**failures)
                self.logger.warning(
                    "database unavailable, trying again in %.1fs: %s",
                    pause,
                    error.cause,
                )
                stop.wait(pause)
                continue
            failures = 0
            if not busy:
                stop.wait(self.poll_interval)
        self.client.close()

    def deliver_one(self):
        """Send the most overdue delivery, if any is due; whether there was one."""
        delivery = delivery_store.claim(self.db, self.lease, self.max_attempts)
        if delivery is None:
            return False
        error = self._send(delivery)
        retry_at = None
        if error is not None and delivery.attempts < self.max_attempts:
            retry_at = utcnow() + datetime.timedelta(seconds=self._backoff(delivery.attempts))
        delivery_store.finish(self.db, delivery.id, error, retry_at)
        if error is not None and retry_at is None:
            level, outcome = logging.WARNING, f"{error}; no attempts left, kept as failed"
        else:
            level, outcome = logging.INFO, error or "delivered"
        self.logger.log(
            level,
            "delivery %s to %s attempt %d: %s",
            delivery.id,
            delivery.url,
            delivery.attempts,
            outcome,
        )
        return True

    def _send(self, delivery):
        body = delivery.body.encode()
        headers = {
            "Content-Type": "application/json",
            "X-Plantstore-Event": delivery.event,
            "X-Plantstore-Delivery": delivery.id,
            "X-Plantstore-Signature": signature(self.secret, body),
        }
        deadline = Deadline(self.timeout)
        try:
            # Streamed, so the receiver's answer body is never read: only its status counts.
            with (
                deadline,
                self.client.stream(
                    "POST",
                    delivery.url,
                    content=body,
                    headers=headers,
                    extensions={"trace": deadline.trace},
                ) as response,
            ):
                status = response.status_code
        except httpx.HTTPError as error:
            if deadline.expired or isinstance(error, httpx.TimeoutException):
                return "timeout"
            return f"{type(error).__name__}: {error}"
        return None if 200 <= status < 300 else f"HTTP {status}"

    def _backoff(self, attempts):
        """Exponential delay with jitter, so failing receivers are not hit in lockstep."""
        delay = min(self.max_delay, self.base_delay * 2 ** (attempts - 1))
        return random.uniform(delay / 2, delay)


webhooks_cli = cli.Group("webhooks", help="Deliver webhook events and inspect deliveries.")


@webhooks_cli.command("run")
def run_command():
    """Deliver events until SIGTERM or SIGINT (the Procfile's worker)."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    logger = current_app.logger
    receivers = len(current_app.config["WEBHOOK_URLS"])
    if not receivers:
        # Idle rather than exit: a Procfile runner stops every process when one exits.
        logger.info("No webhook receivers (PLANTSTORE_WEBHOOK_URLS is empty): idle until stopped.")
        stop.wait()
    else:
        logger.info("Delivering webhooks to %d receiver(s).", receivers)
        Worker(current_app).run(stop)
    logger.info("Webhook worker stopped.")


@webhooks_cli.command("status")
def status_command():
    """Count pending, delivered and failed deliveries; list the failed ones."""
    db = get_db()
    counts, oldest = delivery_store.summary(db)
    for status, count in counts.items():
        click.echo(f"{status}: {count}")
    if oldest is not None:
        age = utcnow() - oldest
        click.echo(f"oldest pending: {int(age.total_seconds())}s")
    for failed in delivery_store.failed(db):
        click.echo(
            f"failed {failed.id} {failed.url} after {failed.attempts} attempts: {failed.last_error}"
        )


@webhooks_cli.command("retry-failed")
def retry_failed_command():
    """Give every failed delivery a fresh set of attempts."""
    click.echo(f"Retrying {delivery_store.retry_failed(get_db())} failed delivery(ies).")


def init_app(app):
    """Register the webhooks command group."""
    app.cli.add_command(webhooks_cli)
