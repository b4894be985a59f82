"""The /plants blueprint: thin routes that parse, call the store, and dump."""

from flask import Blueprint
from werkzeug.exceptions import Conflict

from . import store
from .auth import READ_WRITE, auth
from .db import get_db
from .schemas import NewPlantSchema, PlantSchema, load_json_body

bp = Blueprint("plants", __name__, url_prefix="/plants")

new_plant_schema = NewPlantSchema()
plant_schema = PlantSchema()


@bp.post("")
@auth.login_required(role=READ_WRITE)
def create_plant():
    """Create a plant; a retry with the same content is answered the same."""
    outcome, stored = store.create_plant(get_db(), load_json_body(new_plant_schema))
    if outcome is store.Outcome.CONFLICT:
        raise Conflict(f"A different plant with id {stored['id']} already exists.")
    return plant_schema.dump(stored)
