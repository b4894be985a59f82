"""Where and how each receiver is sent to: its URL, the keys that sign for it, and whether the
guard applies. The operator's receivers come from the settings; the endpoints from their table,
read again in every claim's transaction, so that what a worker claims it sends as the endpoint
is then (a new secret, a new URL; nothing once disabled or deleted)."""

from typing import NamedTuple

from ..payloads import PLANT, Payload
from ..receivers import receiver_name
from ..security.keys import UNSEALED, Keyring, UnreadableSecret, signing_key
from ..tables.endpoints import rounds, serial
from ..tables.records import Endpoint


class Target(NamedTuple):
    """A receiver as the sender sees it: keys sign, the first one first; endpoint, an endpoint
    registered through the API as the round read it, whose settings the sender applies (None
    for an operator's receiver); payload, the body its attempts carry (payloads.py)."""

    url: str
    name: str
    keys: tuple
    endpoint: Endpoint | None = None
    payload: Payload = PLANT

    @property
    def guarded(self):
        """Whether the guard applies: an endpoint may reach only public addresses (the sender
        judges every connection); an operator's receiver anything."""
        return self.endpoint is not None


class Targets(NamedTuple):
    """Every receiver as one round read it, never changed after: by_receiver holds the Target of
    each (the operator's URLs, those no longer configured that are still sent to, and every
    enabled endpoint by its id); endpoints, every endpoint as read (an Endpoint,
    rounds.for_worker), for the disabling; throttled, the throttle_rate of each one sent to
    that has one. The database thread makes it, the loop reads it."""

    by_receiver: dict
    endpoints: dict
    throttled: dict

    def get(self, receiver):
        """The Target of receiver, or None when it is no longer sent to (an endpoint deleted or
        disabled)."""
        return self.by_receiver.get(receiver)


class Reader:
    """Reads the Targets in a round's transaction, opening each endpoint's sealed secrets once
    per stored text. What it keeps (the keys opened, the secrets found unreadable) is the
    database thread's alone."""

    def __init__(self, settings, logger):
        self.logger = logger
        self.keyring = Keyring(settings.keys)
        self.secret = settings.secret.encode()
        self.urls = settings.urls
        self.payload = settings.payload
        self._unreadable = set()
        self._keys = {}
        # Said once, when the first endpoint is read: a worker with none has nothing to seal.
        self._warn_unsealed = not settings.keys
        # The endpoints as last read, the change serial then, the first overlap's end, and
        # the Targets made of them with the kept URLs: the same object while nothing changed.
        self._read = self._serial = self._ends = self._made = None

    def operator(self, kept=()):
        """The Targets of the operator's receivers alone: the configured URLs, and kept, URLs no
        longer configured whose pending deliveries were promised (the loop keeps only those
        it can sign for)."""
        targets = {
            url: Target(url, receiver_name(url), (self.secret,), payload=self.payload)
            for url in (*self.urls, *kept)
        }
        return Targets(targets, {}, {})

    def read(self, db, cursor, kept):
        """Every receiver's Targets, the endpoints as they are in the cursor's transaction:
        read again only when one changed since the last read (their change serial moved on),
        or a replaced secret's overlap has ended by the database's clock; else kept."""
        changed, now = serial.read(cursor)
        if self._read is None or changed != self._serial or (self._ends and now >= self._ends):
            self._serial, self._made = changed, None
            self._read = self._of(rounds.for_worker(cursor))
        kept = tuple(kept)
        if self._made is None or self._made[0] != kept:
            read, targets, throttled = self._read
            made = Targets({**self.operator(kept).by_receiver, **targets}, read, throttled)
            self._made = (kept, made)
        return self._made[1]

    def _of(self, endpoints):
        # (every Endpoint by id, the Targets of those sent to, their throttle rates), and when
        # the first overlap of a replaced secret ends (None when none lasts).
        read = {each.id: each for each in endpoints}
        # Only what the endpoints hold now is kept: deleted ones and replaced secrets go.
        self._unreadable &= read.keys()
        opened, self._keys = self._keys, {}
        if read and self._warn_unsealed:
            self.logger.warning(UNSEALED)
            self._warn_unsealed = False
        targets, throttled, ends = {}, {}, []
        for each in read.values():
            if not each.enabled:
                continue
            sealed = [each.secret]
            for secret, until in _overlaps(each):
                sealed.append(secret)
                ends.append(until)
            keys = self._open(each.id, sealed, opened)
            if keys:
                targets[each.id] = Target(each.url, each.id, keys, each, each.payload)
                if each.throttle_rate is not None:
                    throttled[each.id] = each.throttle_rate
        self._ends = min(ends, default=None)
        return read, targets, throttled

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


def _overlaps(endpoint):
    # (sealed secret, when its overlap ends) of each replaced secret that still signs.
    if endpoint.previous_secret is not None and endpoint.previous_until is not None:
        yield endpoint.previous_secret, endpoint.previous_until
    if endpoint.older_secret is not None and endpoint.older_until is not None:
        yield endpoint.older_secret, endpoint.older_until
