"""GET /event-types: the event catalog. Each event type the features declared, what it means,
and the JSON Schema of its data, written by apispec from the marshmallow schema that dumps that
data, as the OpenAPI document's schemas are: never written a second time by hand."""

import functools

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Blueprint, current_app

from .. import apidoc, auth
from . import declared
from .schemas import DIALECT, CatalogEntrySchema

# Where the app keeps its catalog: it changes only with a deploy.
CATALOG = "plantstore.event_catalog"

bp = apidoc.tag(
    Blueprint("event_types", __name__, url_prefix="/event-types"),
    "The event catalog: every event type, what it means, and the JSON Schema of its data. Any "
    "valid token reads it.",
)


@functools.cache
def _converter():
    # A spec of its own: a nested schema, having no name, is written in place rather than
    # referred to, and the document's own attribute functions (references) stay out.
    plugin = MarshmallowPlugin(schema_name_resolver=lambda _schema: None)
    APISpec("event catalog", "1.0.0", "3.1.0", plugins=[plugin])
    return plugin.converter


def json_schema(schema):
    """The JSON Schema of what schema (a marshmallow Schema class or instance) dumps: its
    fields, those it requires required, and no other key (a body's schema drops unknown keys
    when it loads, which is no reason to allow them in what is sent). Nothing in it refers
    outside it."""
    return {**_converter().schema2jsonschema(schema), "additionalProperties": False}


def data_schema(event_type):
    """The catalog's schema of an EventType's data (its body under the payload "plant"): a
    JSON Schema document of draft 2020-12, whole in itself."""
    name = event_type.body.__name__.removesuffix("Schema")
    return {"$schema": DIALECT, "title": name, **json_schema(event_type.body)}


def entries(app):
    """The catalog: each event type app's features declared, in the order they declared them;
    made at the first request, every type declared by then, and kept, as the document is."""
    made = app.extensions.get(CATALOG)
    if made is None:
        made = app.extensions[CATALOG] = [
            {
                "type": event_type.name,
                "description": f"{event_type.summary} {event_type.description}",
                "schema": data_schema(event_type),
            }
            for event_type in declared.types(app).values()
        ]
    return made


@bp.get("")
@auth.required()
@apidoc.response(
    200, "Every event type, each once, in a fixed order", CatalogEntrySchema(many=True)
)
def list_event_types():
    """List the event types: what each means, and the JSON Schema of its data.

    One entry per type that a change writes to the events feed and that webhooks deliver. Its
    `schema` (JSON Schema, draft 2020-12) describes the type's data: the whole body of a
    delivery under the payload `plant`, and the `data` of an event in the feed, or of a
    delivery under `event`. It refuses what the service never sends: an unknown key, a wrong
    type. The catalog changes only with a new version of the service.
    """
    return entries(current_app)
