"""The /plants blueprint: thin routes that parse, call the store, and dump."""

from flask import Blueprint, Response, request, url_for
from marshmallow import ValidationError
from werkzeug.exceptions import Conflict, NotFound

from . import apidoc, metrics, webhooks
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

bp = apidoc.tag(
    Blueprint("plants", __name__, url_prefix="/plants"),
    "The plants in the store: create, list, read and delete them.",
)

new_plant_schema = NewPlantSchema()
plant_schema = PlantSchema()
stored_plant_schema = StoredPlantSchema()
stored_plants_schema = StoredPlantSchema(many=True)
plant_id_field = PlantIdSchema().fields["id"]
list_query_schema = ListQuerySchema()


@bp.post("")
@apidoc.body(NewPlantSchema)
@apidoc.response(200, "The plant, without its id", PlantSchema)
@apidoc.errors(403, 409)
@auth.login_required(role=READ_WRITE)
def create_plant():
    """Create a plant; a retry with the same content is answered the same.

    Needs a read-write token. A new id stores the plant and announces it to the webhook's
    receivers. The same id again with the same name and tag is answered 200 again, so a
    client may retry safely; with another name or tag it is a 409 and nothing changes.
    Unknown keys in the body are ignored.
    """
    plant = load_json_body(new_plant_schema)
    outcome, stored = plant_store.create(get_db(), plant, webhooks.outbox_rows(plant))
    if outcome is plant_store.Outcome.CREATED:
        metrics.plant_created()
    if outcome is plant_store.Outcome.CONFLICT:
        raise Conflict(f"A different plant with id {stored['id']} already exists.")
    return plant_schema.dump(stored)


@bp.get("")
@apidoc.arguments(ListQuerySchema, "query")
@apidoc.response(
    200,
    "A page of plants",
    StoredPlantSchema(many=True),
    headers={
        "Link": {
            "description": 'When more plants remain, `<URL of the next page>; rel="next"`; '
            "absent on the last page.",
            "schema": {"type": "string"},
            "example": '<https://plants.example/plants?limit=2&after=2>; rel="next"',
        }
    },
)
@auth.login_required
def list_plants():
    """List plants by ascending id, a page at a time.

    At most `limit` plants whose id is above `after`. Follow the `Link` header's `rel="next"`
    URL until there is none: plants created or deleted meanwhile never make a page skip or
    repeat one.
    """
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
@apidoc.arguments(PlantIdSchema, "path")
@apidoc.response(200, "The plant", StoredPlantSchema)
@auth.login_required
def get_plant(plant_id):
    """Read one plant.

    The plant with this id, the id included; 404 when there is none.
    """
    plant = plant_store.get(get_db(), _parse_id(plant_id))
    if plant is None:
        raise NotFound("There is no plant with this id.")
    return stored_plant_schema.dump(plant)


@bp.delete("/<plant_id>")
@apidoc.arguments(PlantIdSchema, "path")
@apidoc.response(204, "Deleted; there is no body")
@apidoc.errors(403)
@auth.login_required(role=READ_WRITE)
def delete_plant(plant_id):
    """Delete one plant.

    Needs a read-write token. The deletion is final: the id is free again for a new plant.
    404 when there is no plant with this id.
    """
    if not plant_store.delete(get_db(), _parse_id(plant_id)):
        raise NotFound("There is no plant with this id.")
    response = Response(status=204)
    del response.headers["Content-Type"]  # there is no body to describe
    return response


def _parse_id(plant_id):
    # The schema's one field alone: a whole load costs as much again, on every read and delete.
    try:
        return plant_id_field.deserialize(plant_id)
    except ValidationError as error:
        raise ValidationError({"id": error.messages}) from None
