"""Where and how each receiver is sent to: its URL, the keys that sign for it, and whether the
guard applies. The operator's receivers come from the settings; the endpoints from their table,
read again in every claim's transaction, so that what a worker claims it sends as the endpoint
is then (a new secret, a new URL; nothing once disabled or deleted)."""

from typing import NamedTuple

from ...database import utcnow
from ..receivers import receiver_name
from ..security.keys import UNSEALED, Keyring, UnreadableSecret, signing_key
from ..tables.endpoints import rounds


class Target(NamedTuple):
    """A receiver as the sender sees it: keys sign, the first one first; guarded: an endpoint
    registered through the API, which may reach only public addresses (the sender judges every
    connection)."""

    url: str
    name: str
    keys: tuple
    guarded: bool


class Targets:
    """The Target of each receiver (by_receiver): the operator's URLs, and every enabled
    endpoint by its id; and every endpoint as last read (an Endpoint, rounds.for_worker), for
    the disabling."""

    def __init__(self, settings, logger):
        self.logger = logger
        self.keyring = Keyring(settings.keys)
        self.secret = secret = settings.secret.encode()
        self.operator = {
            url: Target(url, receiver_name(url), (secret,), False) for url in settings.urls
        }
        self.by_receiver = dict(self.operator)
        self.endpoints = {}
        self._unreadable = set()
        self._keys = {}
        # Said once, when the first endpoint is read: a worker with none has nothing to seal.
        self._warn_unsealed = not settings.keys

    def keep(self, url):
        """Send to an operator's URL no longer configured too, as the operator's receivers are
        sent to: its deliveries still pending were promised, and go out or fail in time. False
        when there is no PLANTSTORE_WEBHOOK_SECRET to sign them with. Called in the loop's
        thread."""
        if url in self.operator:
            return True
        if not self.secret:
            return False
        target = Target(url, receiver_name(url), (self.secret,), False)
        # Replaced, never changed in place: refresh() copies operator in the database thread.
        self.operator = {**self.operator, url: target}
        self.by_receiver = {**self.by_receiver, url: target}
        return True

    def refresh(self, db, cursor):
        """Read the endpoints again, in the cursor's transaction: one read a round."""
        targets = dict(self.operator)
        now = utcnow()
        read = {each.id: each for each in rounds.for_worker(db, cursor)}
        # Only what the endpoints hold now is kept: deleted ones and replaced secrets go.
        self._unreadable &= read.keys()
        opened, self._keys = self._keys, {}
        if read and self._warn_unsealed:
            self.logger.warning(UNSEALED)
            self._warn_unsealed = False
        for each in read.values():
            if not each.enabled:
                continue
            sealed = [each.secret]
            if each.previous_secret is not None and each.previous_until > now:
                sealed.append(each.previous_secret)
            if each.older_secret is not None and each.older_until > now:
                sealed.append(each.older_secret)
            keys = self._open(each.id, sealed, opened)
            if keys:
                targets[each.id] = Target(each.url, each.id, keys, True)
        self.endpoints = read
        self.by_receiver = targets

    def _open(self, endpoint_id, sealed, opened):
        # Opened once per stored text, not at every reading: Fernet's check costs as much as a
        # claim. An unreadable one is said once: its deliveries wait for a key that opens it.
        try:
            return tuple(self._key(each, opened) for each in sealed)
        except UnreadableSecret as error:
            if endpoint_id not in self._unreadable:
                self.logger.error(
                    "webhook endpoint %s is not sent to: its secret is %s", endpoint_id, error
                )
                self._unreadable.add(endpoint_id)
            return None

    def _key(self, sealed, opened):
        key = opened.get(sealed) or signing_key(self.keyring.open(sealed))
        self._keys[sealed] = key
        return key

    def get(self, receiver):
        """The Target of receiver, or None when it is no longer sent to (an endpoint deleted or
        disabled)."""
        return self.by_receiver.get(receiver)
