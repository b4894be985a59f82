"""GET /openapi.json: the interface as an OpenAPI 3 document, built from the service's schemas."""

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Blueprint, current_app

from .schemas import (
    ErrorSchema,
    ListQuerySchema,
    NewPlantSchema,
    PlantIdSchema,
    PlantSchema,
    StoredPlantSchema,
)

bp = Blueprint("openapi", __name__)

ERRORS = {
    400: "The request is malformed: the message names every offending field",
    401: "No bearer token, or one that is unknown, revoked or expired",
    403: "The token is read-only",
    404: "There is no such plant",
    409: "A different plant with this id already exists",
    413: "The request body is larger than the limit",
    415: "The request body is not application/json",
    503: "The database does not answer",
}


def _responses(success, *errors):
    responses = dict(success)
    responses.update(
        {str(status): {"$ref": f"#/components/responses/{status}"} for status in errors}
    )
    return responses


def _json(schema, description, **extra):
    return {
        "description": description,
        "content": {"application/json": {"schema": schema}},
        **extra,
    }


def build_spec():
    """The OpenAPI document of every operation, as a dict."""
    spec = APISpec(
        title="Plant Store",
        version="1.0.0",
        openapi_version="3.0.3",
        plugins=[MarshmallowPlugin()],
        info={
            "description": "A plant store: create, list, read and delete plants.",
            "license": {"name": "MIT", "url": "https://opensource.org/licenses/MIT"},
        },
        security=[{"bearerAuth": []}],
    )
    spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer"})
    for name, schema in (
        ("Plant", PlantSchema),
        ("NewPlant", NewPlantSchema),
        ("StoredPlant", StoredPlantSchema),
        ("Error", ErrorSchema),
    ):
        spec.components.schema(name, schema=schema)
    for status, description in ERRORS.items():
        extra = {}
        if status == 401:
            extra["headers"] = {
                "WWW-Authenticate": {
                    "schema": {"type": "string"},
                    "description": "Bearer challenge",
                }
            }
        spec.components.response(str(status), _json("Error", description, **extra))

    spec.path(
        path="/plants",
        operations={
            "post": {
                "summary": "Create a plant; a retry with the same content is answered the same.",
                "operationId": "createPlant",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": "NewPlant"}},
                },
                "responses": _responses(
                    {"200": _json("Plant", "The plant, without its id")},
                    400,
                    401,
                    403,
                    409,
                    413,
                    415,
                    503,
                ),
            },
            "get": {
                "summary": "List plants by ascending id, a page at a time.",
                "operationId": "listPlants",
                "parameters": [{"in": "query", "schema": ListQuerySchema}],
                "responses": _responses(
                    {
                        "200": _json(
                            {"type": "array", "items": "StoredPlant"},
                            "A page of plants",
                            headers={
                                "Link": {
                                    "schema": {"type": "string"},
                                    "description": '<url>; rel="next" when more plants remain',
                                }
                            },
                        )
                    },
                    400,
                    401,
                    503,
                ),
            },
        },
    )
    spec.path(
        path="/plants/{id}",
        operations={
            "get": {
                "summary": "Read one plant.",
                "operationId": "getPlant",
                "parameters": [{"in": "path", "schema": PlantIdSchema}],
                "responses": _responses(
                    {"200": _json("StoredPlant", "The plant")}, 400, 401, 404, 503
                ),
            },
            "delete": {
                "summary": "Delete one plant.",
                "operationId": "deletePlant",
                "parameters": [{"in": "path", "schema": PlantIdSchema}],
                "responses": _responses(
                    {"204": {"description": "Deleted"}}, 400, 401, 403, 404, 503
                ),
            },
        },
    )
    spec.path(
        path="/healthz",
        operations={
            "get": {
                "summary": "Report whether the service can reach its database.",
                "operationId": "health",
                "security": [],
                "responses": _responses(
                    {
                        "200": _json(
                            {
                                "type": "object",
                                "properties": {"status": {"type": "string", "enum": ["ok"]}},
                                "required": ["status"],
                            },
                            "The service and its database answer",
                        )
                    },
                    503,
                ),
            }
        },
    )
    spec.path(
        path="/openapi.json",
        operations={
            "get": {
                "summary": "This document.",
                "operationId": "openapi",
                "security": [],
                "responses": {
                    "200": {
                        "description": "The OpenAPI document",
                        "content": {"application/json": {}},
                    }
                },
            }
        },
    )
    return spec.to_dict()


@bp.get("/openapi.json")
def openapi():
    """Serve the OpenAPI document."""
    return current_app.extensions["plantstore.openapi"]


def init_app(app):
    """Build the document once and serve it."""
    app.extensions["plantstore.openapi"] = build_spec()
    app.register_blueprint(bp)
