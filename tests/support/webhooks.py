"""What the webhook tests share: the secret, creating plants, and reading status."""

from support.tokens import TOKEN

SECRET = "webhook-test-secret"


def create(client, plant_id, name="Fern", **extra):
    body = {"id": plant_id, "name": name, **extra}
    return client.post("/plants", json=body, headers={"Authorization": f"Bearer {TOKEN}"})


def status_of(cli):
    return cli.invoke(args=["webhooks", "status"]).output


def settled(cli, delivered, failed=0):
    """Whether status shows nothing pending, and so many delivered and failed."""
    status = status_of(cli)
    return all(
        f"{word}: {count}\n" in status
        for word, count in (("pending", 0), ("delivered", delivered), ("failed", failed))
    )


def no_pending(server):
    """Whether `webhooks status` on a live server counts nothing pending: its first line, not
    the "oldest pending: 0s" of a delivery made this second."""
    return server.cli("webhooks", "status").startswith("pending: 0\n")


def create_many(server, count):
    """Create plants 0 .. count-1 through the server; every one must be a 200."""
    for plant_id in range(count):
        assert server.request("POST", "/plants", {"id": plant_id, "name": "Fern"}).status == 200


def receiver_settings(secret, *urls, **extra):
    """Webhook settings for these receivers, signed with secret, retrying fast."""
    return {
        "WEBHOOK_URLS": ",".join(urls),
        "WEBHOOK_SECRET": secret,
        "WEBHOOK_MAX_ATTEMPTS": 3,
        "WEBHOOK_RETRY_DELAY": 0.1,
        "WEBHOOK_RETRY_MAX_DELAY": 0.2,
        "WEBHOOK_TIMEOUT": 0.5,
        **extra,
    }


def published(make_app, settings, count):
    """Create plants 0 .. count-1 through an app with settings: their events wait."""
    client = make_app(**settings).test_client()
    for plant_id in range(count):
        assert create(client, plant_id).status_code == 200


def most_in_flight(attempts):
    """The most attempts open at once, from (opened, closed) times (closed None: still open)."""
    return max((current for _, current in _in_flight(attempts)), default=0)


def answered_by(attempts, moment):
    """How many of attempts, (opened, closed) times, were answered by moment."""
    return sum(1 for _, closed in attempts if closed is not None and closed <= moment)


def first_in_flight(attempts, count):
    """When count attempts were first open at once, from (opened, closed) times; None if never."""
    return next((at for at, current in _in_flight(attempts) if current >= count), None)


def _in_flight(attempts):
    # (time, attempts open just after it) at each opening and closing, in time order.
    edges = sorted(
        [(opened, 1) for opened, _ in attempts]
        + [(closed, -1) for _, closed in attempts if closed is not None]
    )
    current = 0
    for at, step in edges:
        current += step
        yield at, current
