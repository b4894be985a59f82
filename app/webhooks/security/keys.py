"""Endpoint secrets: made as Standard Webhooks writes them, stored sealed with Fernet keys."""

import base64
import secrets

from .. import settings

# A secret is shown as this prefix and the base64 of its signing key (Standard Webhooks).
PREFIX = "whsec_"
# How a stored secret says how it is kept: sealed with a Fernet key, or as it is.
SEALED, PLAIN = "fernet:", "plain:"
UNSEALED = (
    "PLANTSTORE_WEBHOOK_KEYS is empty: webhook endpoint secrets are stored unencrypted; "
    "set a Fernet key so that a copy of the database alone signs nothing"
)
# Where the app notes that this process said UNSEALED already.
WARNED = "plantstore.webhook_unsealed_warned"


def new_secret():
    """A new endpoint secret: whsec_ and the base64 of 32 random bytes."""
    return PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def signing_key(secret):
    """The bytes that sign with a whsec_ secret."""
    return base64.b64decode(secret.removeprefix(PREFIX))


class UnreadableSecret(Exception):
    """A stored secret that none of PLANTSTORE_WEBHOOK_KEYS opens."""


class Keyring:
    """Seals secrets with the first of PLANTSTORE_WEBHOOK_KEYS and opens them with any; with
    no key, keeps them as they are."""

    def __init__(self, keys):
        self.fernet = None
        if keys:
            # Imported here: a process with no key never loads cryptography.
            from cryptography.fernet import Fernet, InvalidToken, MultiFernet

            self.fernet = MultiFernet([Fernet(key) for key in keys])
            self.invalid = InvalidToken

    def seal(self, secret):
        """The text to store for secret."""
        if self.fernet is None:
            return PLAIN + secret
        return SEALED + self.fernet.encrypt(secret.encode()).decode()

    def open(self, stored):
        """The secret that stored text holds; UnreadableSecret when no key opens it."""
        if stored.startswith(PLAIN):
            return stored.removeprefix(PLAIN)
        if self.fernet is None:
            raise UnreadableSecret("stored encrypted, and PLANTSTORE_WEBHOOK_KEYS is empty")
        try:
            return self.fernet.decrypt(stored.removeprefix(SEALED).encode()).decode()
        except self.invalid:
            raise UnreadableSecret("no key of PLANTSTORE_WEBHOOK_KEYS opens it") from None


def warn_if_unsealed(app):
    """Log, once per process, that endpoint secrets are stored as they are when no key is set:
    called where a secret is stored, so that a process with no endpoint says nothing."""
    if settings.of(app).keys or app.extensions.get(WARNED):
        return
    app.extensions[WARNED] = True
    app.logger.warning(UNSEALED)
