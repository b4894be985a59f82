"""The /plants blueprint: each operation described once, by decorators that load and dump."""

from flask import Blueprint, current_app
from marshmallow import ValidationError
from werkzeug.exceptions import Conflict, NotFound

from .. import apidoc, auth, body, headers
from ..database import get_db
from . import changes, store, versions
from .schemas import (
    ListQuerySchema,
    NewPlantSchema,
    PlantChangeSchema,
    PlantIdSchema,
    PlantSchema,
    StoredPlantSchema,
)

bp = apidoc.tag(
    Blueprint("plants", __name__, url_prefix="/plants"),
    "The plants in the store: create, list, read, change and delete them.",
)

# Where the app keeps the counter of plants newly stored.
CREATED_COUNTER = "plantstore.plants_created"
# The errors of a plant's own, as the document describes them.
NO_SUCH_PLANT = "There is no plant with this id."
NOT_FOUND = (404, "No such resource: an unknown path, or no plant with this id.", NO_SUCH_PLANT)
CONFLICT = (
    409,
    "A different plant with this id already exists.",
    "A different plant with id 1 already exists.",
)
BAD_QUERY = (
    400,
    "A query parameter that is malformed, out of range, unknown or given more than once: the "
    "message names each.",
    "tag: Must be given at most once.",
)

MERGE_PATCH_ONLY = (
    415,
    "The request body is neither application/merge-patch+json nor application/json.",
    "Content-Type must be application/merge-patch+json or application/json.",
)

NEXT_PAGE = {
    "description": 'When more plants remain, `<URL of the next page>; rel="next"`; '
    "absent on the last page.",
    "schema": {"type": "string"},
    "example": '<https://plants.example/plants?limit=2&after=2>; rel="next"',
}


@bp.post("")
@auth.required(auth.READ_WRITE)
@apidoc.response(200, "The plant, without its id", PlantSchema)
@apidoc.error(*CONFLICT)
@apidoc.body(NewPlantSchema)
def create_plant(plant):
    """Create a plant; a retry with the same content is answered the same.

    Needs a read-write token. A new id stores the plant and announces it to the webhook's
    receivers. The same id again with the same name and tag is answered 200 again, so a
    client may retry safely; with another name or tag it is a 409 and nothing changes.
    Unknown keys in the body are ignored.
    """
    outcome, stored = store.create(get_db(), plant)
    if outcome is store.CreateResult.CREATED:
        current_app.extensions[CREATED_COUNTER].inc()
    if outcome is store.CreateResult.CONFLICT:
        raise Conflict(f"A different plant with id {stored['id']} already exists.")
    return stored


@bp.get("")
@auth.required()
@apidoc.response(200, "A page of plants", StoredPlantSchema(many=True), {"Link": NEXT_PAGE})
@apidoc.error(*BAD_QUERY)
@apidoc.arguments(ListQuerySchema, "query")
def list_plants(query):
    """List plants by ascending id, a page at a time, all of them or those of one tag.

    At most `limit` plants whose id is above `after`; with `tag`, only those whose tag is
    exactly it, at the cost of an unfiltered page however rare the tag. Follow the `Link`
    header's `rel="next"` URL, which keeps the filter, until there is none: plants created or
    deleted meanwhile never make a page skip or repeat one. A parameter given twice is a 400.
    """
    tag = query.get("tag")
    page, more = store.page(get_db(), query.get("after"), query["limit"], tag)
    if not more:
        return page
    kept = {} if tag is None else {"tag": tag}
    return page, headers.next_page(
        ".list_plants", limit=query["limit"], after=page[-1]["id"], **kept
    )


@bp.get("/<plant_id>")
@auth.required()
@apidoc.response(200, "The plant", StoredPlantSchema, {"ETag": versions.ETAG})
@apidoc.response(304, versions.NOT_MODIFIED, None, {"ETag": versions.ETAG})
@apidoc.error(*NOT_FOUND)
@apidoc.request_header("If-None-Match", *versions.IF_NONE_MATCH)
@apidoc.arguments(PlantIdSchema, "path")
def get_plant(plant_id):
    """Read one plant, with its version.

    The plant with this id, the id included, and its version in the `ETag` header; 404 when
    there is none. With `If-None-Match` naming its current version, a 304 without a body.
    """
    plant = store.get(get_db(), plant_id)
    if plant is None:
        raise NotFound(NO_SUCH_PLANT)
    version = versions.etag(plant)
    if versions.known_to_client(version):
        return versions.not_modified(version)
    return plant, {"ETag": version}


@bp.patch("/<plant_id>")
@auth.required(auth.READ_WRITE)
@apidoc.response(200, "The plant as it now is", StoredPlantSchema, {"ETag": versions.ETAG})
@apidoc.error(*NOT_FOUND)
@apidoc.error(*versions.PRECONDITION_FAILED)
@apidoc.error(*MERGE_PATCH_ONLY)
@apidoc.request_header("If-Match", *versions.IF_MATCH)
@apidoc.arguments(PlantIdSchema, "path")
@apidoc.body(PlantChangeSchema, body.MERGE_PATCH)
def update_plant(change, plant_id):
    """Change a plant's name or tag.

    Needs a read-write token. The body is a JSON Merge Patch (RFC 7396): `name` and `tag`
    replace the plant's, with the rules of a create, and a `tag` of null removes it; what is
    left out stays. An `id` equal to the path's is ignored, any other is refused; other keys
    are ignored. The answer is the plant as it now is, with its new version in `ETag`; a change
    that changes nothing keeps the version and announces nothing. With `If-Match`, the change
    is made only if the plant is still at that version: of concurrent changes from one
    version, exactly one is made and the others get 412.
    """
    if change.pop("id", plant_id) != plant_id:
        raise ValidationError({"id": ["Must be the id in the path, or left out."]})
    outcome, plant = changes.update(get_db(), plant_id, change, versions.if_match())
    if outcome is changes.ChangeResult.MISSING:
        raise NotFound(NO_SUCH_PLANT)
    if outcome is changes.ChangeResult.STALE:
        raise versions.refused(plant)
    return plant, {"ETag": versions.etag(plant)}


@bp.delete("/<plant_id>")
@auth.required(auth.READ_WRITE)
@apidoc.response(204, "Deleted; there is no body")
@apidoc.error(*NOT_FOUND)
@apidoc.error(*versions.PRECONDITION_FAILED)
@apidoc.request_header("If-Match", *versions.IF_MATCH)
@apidoc.arguments(PlantIdSchema, "path")
def delete_plant(plant_id):
    """Delete one plant.

    Needs a read-write token. The deletion is final: the id is free again for a new plant.
    404 when there is no plant with this id. With `If-Match`, the plant is deleted only if it
    is still at that version, else 412 and nothing changes.
    """
    precondition = versions.if_match()
    if precondition is None:
        if not store.delete(get_db(), plant_id):
            raise NotFound(NO_SUCH_PLANT)
    else:
        outcome, plant = changes.delete(get_db(), plant_id, precondition)
        if outcome is changes.ChangeResult.STALE:
            raise versions.refused(plant)
    return headers.no_content(204)
