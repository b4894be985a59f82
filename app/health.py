"""GET /healthz: is the database there and ready?"""

from flask import Blueprint

from . import store
from .db import get_db

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz():
    """Report whether the service can reach its database."""
    store.ping(get_db())
    return {"status": "ok"}
