"""GET /healthz: is the database there and ready?"""

from flask import Blueprint

from .db import get_db
from .store import plants as plant_store

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz():
    """Report whether the service can reach its database."""
    plant_store.ping(get_db())
    return {"status": "ok"}
