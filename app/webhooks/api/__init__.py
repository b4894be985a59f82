"""The HTTP API of webhooks: /webhooks, endpoints that receivers register, change and remove
themselves with an admin token, and each endpoint's delivery log; their JSON shapes, the address
rule at registration, and the document's webhooks section. It never imports the worker."""

from . import log_routes
from .routes import KEYRING, bp

log_routes.add_to(bp)

__all__ = ["KEYRING", "bp"]
