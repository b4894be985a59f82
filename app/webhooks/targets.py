"""Where and how each receiver is sent to: its URL, the keys that sign for it, and whether the
guard applies. The operator's receivers come from the settings; the endpoints from their table,
read again every few seconds so that a change through the API reaches every worker."""

from typing import NamedTuple

from ..database import utcnow
from . import endpoints
from .keys import Keyring, UnreadableSecret, signing_key
from .outbox import receiver_name


class Target(NamedTuple):
    """A receiver as the sender sees it: keys sign, the first one first; guarded: an endpoint
    registered through the API, which may reach only public addresses."""

    url: str
    name: str
    keys: tuple
    guarded: bool


class Directory:
    """{receiver: Target}: the operator's URLs, and every enabled endpoint by its id."""

    def __init__(self, config, logger):
        self.logger = logger
        self.keyring = Keyring(config["WEBHOOK_KEYS"])
        secret = config["WEBHOOK_SECRET"].encode()
        self.operator = {
            url: Target(url, receiver_name(url), (secret,), False) for url in config["WEBHOOK_URLS"]
        }
        self.targets = dict(self.operator)
        self._unreadable = set()

    def refresh(self, db):
        """Read the endpoints again (in the database thread)."""
        targets = dict(self.operator)
        now = utcnow()
        for endpoint_id, url, enabled, secret, previous, until in endpoints.for_worker(db):
            if not enabled:
                continue
            sealed = [secret] if previous is None or until <= now else [secret, previous]
            keys = self._open(endpoint_id, sealed)
            if keys:
                targets[endpoint_id] = Target(url, endpoint_id, keys, True)
        self.targets = targets

    def _open(self, endpoint_id, sealed):
        # Said once per endpoint, not at every reading: its deliveries wait for a key that opens.
        try:
            return tuple(signing_key(self.keyring.open(each)) for each in sealed)
        except UnreadableSecret as error:
            if endpoint_id not in self._unreadable:
                self.logger.error(
                    "webhook endpoint %s is not sent to: its secret is %s", endpoint_id, error
                )
                self._unreadable.add(endpoint_id)
            return None

    def get(self, receiver):
        """The Target of receiver, or None when it is no longer sent to (an endpoint deleted or
        disabled)."""
        return self.targets.get(receiver)
