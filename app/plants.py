"""The /plants blueprint: thin routes that parse, call the store, and dump."""

from flask import Blueprint, Response, request, url_for
from werkzeug.exceptions import Conflict, NotFound

from . import webhooks
from .auth import READ_WRITE, auth
from .db import get_db
from .schemas import (
    ListQuerySchema,
    NewPlantSchema,
    PlantIdSchema,
    PlantSchema,
    StoredPlantSchema,
    load_json_body,
)
from .store import plants as plant_store

bp = Blueprint("plants", __name__, url_prefix="/plants")

new_plant_schema = NewPlantSchema()
plant_schema = PlantSchema()
stored_plant_schema = StoredPlantSchema()
stored_plants_schema = StoredPlantSchema(many=True)
plant_id_schema = PlantIdSchema()
list_query_schema = ListQuerySchema()


@bp.post("")
@auth.login_required(role=READ_WRITE)
def create_plant():
    """Create a plant; a retry with the same content is answered the same."""
    plant = load_json_body(new_plant_schema)
    outcome, stored = plant_store.create(get_db(), plant, webhooks.outbox_rows(plant))
    if outcome is plant_store.Outcome.CONFLICT:
        raise Conflict(f"A different plant with id {stored['id']} already exists.")
    return plant_schema.dump(stored)


@bp.get("")
@auth.login_required
def list_plants():
    """List plants by ascending id, a page at a time."""
    query = list_query_schema.load(request.args)
    page, more = plant_store.page(get_db(), query.get("after"), query["limit"])
    headers = {}
    if more:
        next_page = url_for(
            ".list_plants", limit=query["limit"], after=page[-1]["id"], _external=True
        )
        headers["Link"] = f'<{next_page}>; rel="next"'
    return stored_plants_schema.dump(page), headers


@bp.get("/<plant_id>")
@auth.login_required
def get_plant(plant_id):
    """Read one plant."""
    plant = plant_store.get(get_db(), _parse_id(plant_id))
    if plant is None:
        raise NotFound("There is no plant with this id.")
    return stored_plant_schema.dump(plant)


@bp.delete("/<plant_id>")
@auth.login_required(role=READ_WRITE)
def delete_plant(plant_id):
    """Delete one plant."""
    if not plant_store.delete(get_db(), _parse_id(plant_id)):
        raise NotFound("There is no plant with this id.")
    response = Response(status=204)
    del response.headers["Content-Type"]  # there is no body to describe
    return response


def _parse_id(plant_id):
    return plant_id_schema.load({"id": plant_id})["id"]
