"""The webhooks' settings: their defaults and their checks, which app/config.py runs with every
other setting's at start (app/__init__.py adds them), and the typed view the feature reads."""

import base64
import binascii
import ipaddress
from dataclasses import dataclass, fields
from urllib.parse import urlsplit

from ..config_errors import ConfigError, invalid, require_int, require_seconds, split_list

DEFAULTS = {
    "WEBHOOK_URLS": "",
    "WEBHOOK_SECRET": "",
    "WEBHOOK_MAX_ATTEMPTS": 10,
    "WEBHOOK_RETRY_DELAY": 10,
    "WEBHOOK_RETRY_MAX_DELAY": 3600,
    "WEBHOOK_TIMEOUT": 5,
    "WEBHOOK_POLL_INTERVAL": 1,
    # Attempts in flight: in all; to a receiver that fails; to one that answers, at most.
    "WEBHOOK_CONCURRENCY": 256,
    "WEBHOOK_RECEIVER_CONCURRENCY": 4,
    "WEBHOOK_RECEIVER_CONCURRENCY_MAX": 128,
    # Seconds a delivered delivery is kept, and how many old ones one transaction deletes.
    "WEBHOOK_RETENTION": 7 * 24 * 3600,
    "WEBHOOK_RETENTION_BATCH": 1000,
    # Endpoints registered through the API: CIDRs they may reach although not public; how many
    # at most; seconds an old secret still signs; seconds of failures before one is disabled.
    "WEBHOOK_ALLOWED_NETWORKS": "",
    # Name servers (IP, or IP:port) the worker asks for receivers' addresses: the system's when
    # empty.
    "WEBHOOK_NAMESERVERS": "",
    "WEBHOOK_MAX_ENDPOINTS": 100,
    "WEBHOOK_SECRET_OVERLAP": 24 * 3600,
    "WEBHOOK_DISABLE_AFTER": 5 * 24 * 3600,
    # Fernet keys that endpoint secrets are stored encrypted with: the first encrypts.
    "WEBHOOK_KEYS": "",
}

# Where the app keeps its WebhookSettings.
EXTENSION = "plantstore.webhook_settings"


@dataclass(frozen=True)
class WebhookSettings:
    """The webhooks' settings as checked, read once at start: PLANTSTORE_WEBHOOK_<NAME> is the
    field <name>, lower-cased; lists are tuples, and seconds stay numbers of seconds."""

    urls: tuple
    secret: str
    max_attempts: int
    retry_delay: float
    retry_max_delay: float
    # An attempt's deadline, and a claimed delivery's longest wait for a slot: so it sets the
    # lease (worker/ledger.py) and bounds the claim-ahead (worker/windows.py) too.
    timeout: float
    poll_interval: float
    concurrency: int
    receiver_concurrency: int
    receiver_concurrency_max: int
    retention: float
    retention_batch: int
    allowed_networks: tuple
    nameservers: tuple
    max_endpoints: int
    secret_overlap: float
    disable_after: float
    keys: tuple


def init_app(app):
    """Read the checked settings of app.config once, into the WebhookSettings of(app) gives."""
    names = (field.name.upper() for field in fields(WebhookSettings))
    values = {name.lower(): app.config[f"WEBHOOK_{name}"] for name in names}
    settings = app.extensions[EXTENSION] = WebhookSettings(**values)
    return settings


def of(app):
    """The app's WebhookSettings."""
    return app.extensions[EXTENSION]


def check(config):
    """Convert each webhook setting of config (a Flask Config) to its value, in place; the
    ConfigError of the first bad one."""
    for key in (
        "WEBHOOK_MAX_ATTEMPTS",
        "WEBHOOK_CONCURRENCY",
        "WEBHOOK_RECEIVER_CONCURRENCY",
        "WEBHOOK_RETENTION_BATCH",
        "WEBHOOK_MAX_ENDPOINTS",
    ):
        require_int(config, key, minimum=1)
    require_int(
        config, "WEBHOOK_RECEIVER_CONCURRENCY_MAX", minimum=config["WEBHOOK_RECEIVER_CONCURRENCY"]
    )
    for key in (
        "WEBHOOK_RETRY_DELAY",
        "WEBHOOK_RETRY_MAX_DELAY",
        "WEBHOOK_TIMEOUT",
        "WEBHOOK_POLL_INTERVAL",
        "WEBHOOK_RETENTION",
        "WEBHOOK_SECRET_OVERLAP",
        "WEBHOOK_DISABLE_AFTER",
    ):
        require_seconds(config, key)
    config["WEBHOOK_ALLOWED_NETWORKS"] = _networks(config["WEBHOOK_ALLOWED_NETWORKS"])
    config["WEBHOOK_NAMESERVERS"] = _nameservers(config["WEBHOOK_NAMESERVERS"])
    config["WEBHOOK_KEYS"] = _fernet_keys(config["WEBHOOK_KEYS"])
    config["WEBHOOK_URLS"] = _webhook_urls(config["WEBHOOK_URLS"])
    if config["WEBHOOK_URLS"] and not config["WEBHOOK_SECRET"]:
        raise invalid(
            "PLANTSTORE_WEBHOOK_SECRET",
            "set when PLANTSTORE_WEBHOOK_URLS is",
            config["WEBHOOK_SECRET"],
        )


def _webhook_urls(value):
    urls = split_list(value, "WEBHOOK_URLS")
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname or not _port_ok(parts):
            raise invalid(
                "PLANTSTORE_WEBHOOK_URLS",
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


def _networks(value):
    networks = []
    for cidr in split_list(value, "WEBHOOK_ALLOWED_NETWORKS"):
        try:
            networks.append(ipaddress.ip_network(cidr, strict=False))
        except ValueError:
            raise invalid(
                "PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS", "comma-separated CIDRs", value
            ) from None
    return tuple(networks)


def _nameservers(value):
    servers = split_list(value, "WEBHOOK_NAMESERVERS")
    if not all(_nameserver_ok(server) for server in servers):
        raise invalid(
            "PLANTSTORE_WEBHOOK_NAMESERVERS",
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


def _fernet_keys(value):
    keys = split_list(value, "WEBHOOK_KEYS")
    for number, key in enumerate(keys, start=1):
        # The key itself is never shown: the message may end up in a log.
        if not isinstance(key, str) or len(_urlsafe_b64decode(key)) != 32:
            raise ConfigError(
                f"PLANTSTORE_WEBHOOK_KEYS: key #{number} is not a Fernet key (the url-safe "
                "base64 of 32 bytes, as Fernet.generate_key() prints it)"
            )
    return tuple(keys)


def _urlsafe_b64decode(text):
    # The check Fernet makes of a key, without loading cryptography in every process.
    try:
        return base64.urlsafe_b64decode(text.encode("ascii"))
    except (ValueError, binascii.Error):
        return b""
