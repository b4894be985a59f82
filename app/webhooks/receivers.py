"""A receiver: where deliveries go, an operator's URL (PLANTSTORE_WEBHOOK_URLS) or an endpoint
registered through the API. The deliveries table's receiver column holds the URL or the
endpoint's id; receiver_name is how logs, `webhooks status` and /metrics name it."""

from urllib.parse import urlsplit, urlunsplit

# Every endpoint's id starts so; no operator's URL does.
ID_PREFIX = "ep_"


def is_endpoint(receiver):
    """Whether a receiver (a deliveries row's) is an endpoint, else an operator's URL."""
    return receiver.startswith(ID_PREFIX)


def receiver_name(receiver):
    """How a receiver is named in logs, status and /metrics: an endpoint by its id; an
    operator's URL without the user name, password or query string, any of which may hold a
    secret."""
    if is_endpoint(receiver):
        return receiver
    parts = urlsplit(receiver)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
