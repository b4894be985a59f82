"""The webhooks' settings, declared once: app/config.py checks them with every other at
start, and every part of the feature reads them, typed, as the WebhookSettings of(app) gives."""

import base64
import binascii
import ipaddress
from urllib.parse import urlsplit

from ..config_errors import ConfigError, at_least, invalid, one_of, seconds, split_list, text
from ..config_spec import Feature, Setting
from .payloads import PLANT, Payload


def _webhook_urls(variable, value) -> tuple[str, ...]:
    urls = split_list(variable, value)
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname or not _port_ok(parts):
            raise invalid(
                variable,
                "comma-separated http(s) URLs with a host, and a port of 1 to 65535 if any",
                value,
            )
    return tuple(urls)


def _port_ok(parts):
    # urlsplit reads the port only when asked, and raises then: a worker's traceback, later.
    try:
        return parts.port != 0
    except ValueError:
        return False


def _networks(variable, value) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    networks = []
    for cidr in split_list(variable, value):
        try:
            networks.append(ipaddress.ip_network(cidr, strict=False))
        except ValueError:
            raise invalid(variable, "comma-separated CIDRs", value) from None
    return tuple(networks)


def _nameservers(variable, value) -> tuple[str, ...]:
    servers = split_list(variable, value)
    if not all(_nameserver_ok(server) for server in servers):
        raise invalid(
            variable,
            "comma-separated IP addresses, each with :port if not 53 ([IPv6]:port)",
            value,
        )
    return tuple(servers)


def _nameserver_ok(server):
    # c-ares's own forms: an address, or an address and a port.
    try:
        ipaddress.ip_address(server)
        return True
    except ValueError:
        pass
    try:
        parts = urlsplit(f"//{server}")
        ipaddress.ip_address(parts.hostname or "")
        return bool(parts.port)
    except ValueError:
        return False


_PAYLOADS = one_of(tuple(Payload), str)


def _payload(variable, value) -> Payload:
    # Empty is the seed's body, as unset is; the words are the API's, in lower case alone.
    return Payload(_PAYLOADS(variable, value or PLANT.value))


def _fernet_keys(variable, value) -> tuple[str, ...]:
    keys = split_list(variable, value)
    for number, key in enumerate(keys, start=1):
        # The key itself is never shown: the message may end up in a log.
        if not isinstance(key, str) or len(_urlsafe_b64decode(key)) != 32:
            raise ConfigError(
                f"{variable}: key #{number} is not a Fernet key (the url-safe "
                "base64 of 32 bytes, as Fernet.generate_key() prints it)"
            )
    return tuple(keys)


def _urlsafe_b64decode(text):
    # The check Fernet makes of a key, without loading cryptography in every process.
    try:
        return base64.urlsafe_b64decode(text.encode("ascii"))
    except (ValueError, binascii.Error):
        return b""


def _cross_check(given, values):
    """The rules across the webhooks' settings, once each is converted."""
    floor, most = values["WEBHOOK_RECEIVER_CONCURRENCY"], values["WEBHOOK_RECEIVER_CONCURRENCY_MAX"]
    if most < floor:
        variable = "PLANTSTORE_WEBHOOK_RECEIVER_CONCURRENCY_MAX"
        raise invalid(variable, f"an integer >= {floor}", given["WEBHOOK_RECEIVER_CONCURRENCY_MAX"])
    if values["WEBHOOK_URLS"] and not values["WEBHOOK_SECRET"]:
        raise invalid(
            "PLANTSTORE_WEBHOOK_SECRET",
            "set when PLANTSTORE_WEBHOOK_URLS is",
            given["WEBHOOK_SECRET"],
        )


FEATURE = Feature(
    "Webhooks",
    (
        Setting(
            "WEBHOOK_URLS",
            "",
            _webhook_urls,
            "webhook receivers, comma-separated `http(s)` URLs with a host, and a port of 1 to "
            "65535 if any",
        ),
        Setting("WEBHOOK_SECRET", "", text, "key of the HMAC signature (required with receivers)"),
        Setting(
            "WEBHOOK_PAYLOAD",
            "plant",
            _payload,
            "the body the receivers of `PLANTSTORE_WEBHOOK_URLS` get: `plant` (the plant alone), "
            "`event` (the feed's Event) or `thin` (the Event with the plant's id alone); see "
            "[webhooks](webhooks.md#what-a-delivery-carries)",
        ),
        Setting(
            "WEBHOOK_MAX_ATTEMPTS",
            10,
            at_least(1),
            "attempts before a delivery is kept as failed",
        ),
        Setting(
            "WEBHOOK_RETRY_DELAY", 10, seconds, "seconds before the first retry; doubles each time"
        ),
        Setting(
            "WEBHOOK_RETRY_MAX_DELAY", 3600, seconds, "longest wait between two attempts, seconds"
        ),
        # An attempt's deadline, and a claimed delivery's longest wait for a slot: so it sets
        # the lease (worker/ledger.py) and bounds the claim-ahead (worker/windows.py) too.
        Setting(
            "WEBHOOK_TIMEOUT",
            5,
            seconds,
            "seconds one attempt may take in all: connect, send, and the whole answer",
        ),
        Setting(
            "WEBHOOK_POLL_INTERVAL", 1, seconds, "seconds an idle worker waits before looking again"
        ),
        Setting(
            "WEBHOOK_CONCURRENCY",
            256,
            at_least(1),
            "attempts the worker has in flight at most, in all",
        ),
        Setting(
            "WEBHOOK_RECEIVER_CONCURRENCY",
            4,
            at_least(1),
            "attempts in flight to a receiver that fails or times out, at most; where every "
            "receiver's window starts",
        ),
        Setting(
            "WEBHOOK_RECEIVER_CONCURRENCY_MAX",
            128,
            at_least(1),
            "attempts in flight to a receiver that answers 2xx and has a backlog, at most (its "
            "window grows up to it); at least `PLANTSTORE_WEBHOOK_RECEIVER_CONCURRENCY`",
        ),
        Setting(
            "WEBHOOK_RETENTION",
            7 * 24 * 3600,
            seconds,
            "seconds a delivered delivery is kept before the worker deletes it",
            "7 days",
        ),
        Setting(
            "WEBHOOK_RETENTION_BATCH",
            1000,
            at_least(1),
            "delivered rows deleted per transaction, and old events of the feed, by the worker",
        ),
        Setting(
            "WEBHOOK_ALLOWED_NETWORKS",
            "",
            _networks,
            "CIDRs, comma-separated, that endpoints registered through the API may reach "
            "although not public (`127.0.0.0/8` on a laptop); the operator's receivers are not "
            "guarded (see [webhook endpoints](webhook-endpoints.md#the-guard))",
        ),
        Setting(
            "WEBHOOK_NAMESERVERS",
            "",
            _nameservers,
            "name servers, comma-separated (`10.0.0.2`, `10.0.0.2:5353`, `[fd00::53]:53`), that "
            "the worker asks for receivers' addresses, through c-ares; `/etc/hosts` is read "
            "first either way (see [webhooks](webhooks.md#the-worker))",
            "the system's, from `/etc/resolv.conf`",
        ),
        Setting(
            "WEBHOOK_MAX_ENDPOINTS",
            100,
            at_least(1),
            "endpoints registered through the API, at most; one more is a 409",
        ),
        Setting(
            "WEBHOOK_SECRET_OVERLAP",
            24 * 3600,
            seconds,
            "seconds an endpoint's old secret still signs beside a new one",
        ),
        Setting(
            "WEBHOOK_DISABLE_AFTER",
            5 * 24 * 3600,
            seconds,
            "seconds of nothing but failures after which an endpoint's next failure disables it",
            "5 days",
        ),
        Setting(
            "WEBHOOK_KEYS",
            "",
            _fernet_keys,
            "Fernet keys, comma-separated: endpoint secrets are stored encrypted with the "
            "first, and read with any, so keys can rotate; empty stores them as they are, and "
            "each process that stores or reads one says so once, with a WARNING: a server "
            "process at its first registration or rotation, the worker once it reads an "
            "endpoint; with no endpoint, nothing is said",
        ),
    ),
    field_prefix="WEBHOOK_",
    cross_check=_cross_check,
    about="See [webhooks](webhooks.md) for how each is used.",
)

WebhookSettings = FEATURE.typed_class(
    "WebhookSettings",
    "The webhooks' settings as checked, read once at start: PLANTSTORE_WEBHOOK_<NAME> is the "
    "field <name>, lower-cased; lists are tuples, and seconds stay numbers of seconds.",
)

# Where the app keeps its WebhookSettings.
EXTENSION = "plantstore.webhook_settings"


def init_app(app):
    """Read the checked settings of app.config once, into the WebhookSettings of(app) gives."""
    settings = app.extensions[EXTENSION] = FEATURE.typed(WebhookSettings, app.config)
    return settings


def of(app):
    """The app's WebhookSettings."""
    return app.extensions[EXTENSION]
