"""GET /openapi.json: the interface as an OpenAPI 3.1 document, built by walking app.url_map.

Each operation is described once, where its route is (the ``apidoc`` decorators, the view's
docstring, the marshmallow schemas that validate it), and each event where its feature
declares it; this module only assembles them, the resources a client came for first.
"""

import inspect
import re
import sys

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Blueprint, current_app, request
from marshmallow import Schema

from .. import apidoc, events, ratelimit
from ..errors import ErrorSchema
from ..problems import ProblemItemSchema, ProblemSchema
from ..webhooks.api import openapi as webhooks_openapi
from . import responses

bp = Blueprint("openapi", __name__)
apidoc.tag(bp, "The interface itself: this document, and the page that renders it.")

# Routing and the one error handler can answer any request with these.
EVERY_OPERATION = {404, 405, 500}
CONVERTER = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


def build_spec(app):
    """The OpenAPI document of every route of app that is not hidden, and of the webhooks."""
    # Every event a feature declared, from the registry the webhooks feature reads too.
    event_types = list(events.types(app).values())
    spec = _new_spec(event_types)
    routes = [
        (rule, app.view_functions[rule.endpoint])
        for rule in sorted(app.url_map.iter_rules(), key=_in_order_of(app))
        if not apidoc.operation_of(app.view_functions[rule.endpoint]).hidden
    ]
    _register_schemas(spec, [apidoc.operation_of(view) for _, view in routes], event_types)
    tags, referred = {}, set()
    for rule, view in routes:
        tag = rule.endpoint.rpartition(".")[0] or "service"
        if tag not in tags:
            tags[tag] = apidoc.tag_description(tag) or _module_summary(view, tag)
        path, operation = _path_and_operation(rule, view, tag, referred)
        methods = sorted(rule.methods - {"HEAD", "OPTIONS"})
        operations = {method.lower(): dict(operation) for method in methods}
        if len(methods) > 1:  # one view, several operations: each needs its own id
            for method, each in operations.items():
                each["operationId"] += method.title()
        spec.path(path=path, operations=operations)
    for status in sorted(referred):
        spec.components.response(str(status), responses.error_response(status))
    for name, description in tags.items():
        spec.tag({"name": name, "description": description})
    return {**spec.to_dict(), "webhooks": webhooks_openapi.webhooks(event_types)}


def _in_order_of(app):
    """Routes by their blueprint's registration (the features first), then by path."""
    order = {name: number for number, name in enumerate(app.blueprints)}
    return lambda rule: (order.get(rule.endpoint.rpartition(".")[0], len(order)), rule.rule)


def _new_spec(event_types):
    plugin = MarshmallowPlugin()
    spec = APISpec(
        title="Plant Store",
        version="1.0.0",
        openapi_version="3.1.0",
        plugins=[plugin],
        info={
            "description": "A plant store: create, list, read, change and delete plants, and "
            "hear of each change through a signed webhook.",
            "contact": {"name": "Plant Store maintainers"},
            "license": {"name": "MIT", "url": "https://opensource.org/licenses/MIT"},
        },
        security=[{"bearerAuth": []}],
    )
    spec.components.security_scheme(
        "bearerAuth",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "A token made by `flask --app wsgi tokens create`, or one of "
            "PLANTSTORE_API_TOKENS.",
        },
    )
    names = [event.name for event in event_types]
    plugin.converter.add_attribute_function(_event_type_reference)
    plugin.converter.add_attribute_function(_event_types_pattern(names))
    plugin.converter.add_attribute_function(_enum_reference(spec))
    spec.components.schema(
        "EventType",
        {
            "type": "string",
            "enum": names,
            "description": "A kind of event, as the webhooks section describes each.",
            "examples": names[:1],
        },
    )
    for name, description in ratelimit.HEADER_DESCRIPTIONS.items():
        schema = {"type": "integer", "minimum": 0}
        spec.components.header(name, {"description": description, "schema": schema})
    return spec


def _event_type_reference(_converter, field, ret):
    """A field that names an event type (``metadata={"event_type": True}``) refers to the
    EventType schema: the types the features announce, which webhooks' schemas cannot know."""
    if not field.metadata.get("event_type"):
        return {}
    ret.pop("type")  # the reference says it
    return {"$ref": "#/components/schemas/EventType"}


def _event_types_pattern(names):
    """A field that lists event types, comma-separated (``metadata={"event_types": True}``),
    gets the pattern of the declared types' names, which webhooks' schemas cannot know."""
    one = "(" + "|".join(re.escape(name) for name in names) + ")"
    pattern = {"pattern": f"^{one}(,{one})*$"}
    return lambda _converter, field, ret: pattern if field.metadata.get("event_types") else {}


def _enum_reference(spec):
    """A field whose values are an enum's and that names its component
    (``metadata={"component": "WebhookPayload"}``) refers to one schema of them, declared at its
    first use: a client then has one type for it, not one per schema that holds the field."""

    def attribute(_converter, field, ret):
        name = field.metadata.get("component")
        if name is None:
            return {}
        values = ret.pop("enum")
        ret.pop("type", None)  # the reference says it
        if name not in spec.components.schemas:
            spec.components.schema(name, {"type": "string", "enum": values, "examples": values[:1]})
        return {"$ref": f"#/components/schemas/{name}"}

    return attribute


def _register_schemas(spec, operations, event_types):
    # Error is every error's body, whatever the routes say; Problem, for a client that asks.
    schemas = [ErrorSchema, ProblemSchema, ProblemItemSchema]
    for op in operations:
        schemas.append(op.body)
        schemas.extend(answer["schema"] for answer in op.responses.values())
    classes = {
        schema if isinstance(schema, type) else type(schema)
        for schema in schemas
        if isinstance(schema, (type, Schema))
    }
    for schema in sorted(classes, key=lambda cls: cls.__name__):
        name = schema.__name__.removesuffix("Schema")
        spec.components.schema(name, {"examples": [apidoc.example(schema)]}, schema=schema)
    # What a webhook delivers: each event type's body under each payload.
    for name, schema in webhooks_openapi.schemas(event_types).items():
        spec.components.schema(name, schema)


def _module_summary(view, fallback):
    return (inspect.getdoc(sys.modules[view.__module__]) or fallback).splitlines()[0]


def _path_and_operation(rule, view, tag, referred):
    op = apidoc.operation_of(view)
    summary, _, description = (inspect.getdoc(view) or view.__name__).partition("\n")
    first, *rest = view.__name__.split("_")
    path, parameters = _path(rule, op)
    if "query" in op.arguments:
        parameters.append({"in": "query", "schema": op.arguments["query"]})
    parameters.extend(
        {
            "in": "header",
            "name": name,
            "description": said,
            "schema": {"type": "string"},
            "example": example,
        }
        for name, (said, example) in op.request_headers.items()
    )
    operation = {
        "tags": [tag],
        "summary": summary,
        "description": description.strip() or summary,
        "operationId": first + "".join(word.title() for word in rest),
        "responses": _responses(op, referred),
    }
    if parameters:
        operation["parameters"] = parameters
    if op.body is not None:
        content = {"schema": op.body, "example": apidoc.example(op.body)}
        operation["requestBody"] = {
            "required": True,
            "content": {media_type: dict(content) for media_type in op.media_types},
        }
    if not op.secured:
        operation["security"] = []
    return path, operation


def _path(rule, op):
    """The rule as an OpenAPI path, and its path parameters."""
    names = CONVERTER.findall(rule.rule)
    schema = op.arguments.get("path")
    if schema is None:
        parameters = [
            {"in": "path", "name": name, "required": True, "schema": {"type": "string"}}
            for name in names
        ]
        return CONVERTER.sub(r"{\1}", rule.rule), parameters
    # The document names the path parameters as the schema that loads them does.
    fields = iter([field.data_key or name for name, field in schema().fields.items()])
    if len(schema().fields) != len(names):
        raise ValueError(f"{rule.rule}: {schema.__name__} needs one field per path variable")
    return CONVERTER.sub(lambda _: "{" + next(fields) + "}", rule.rule), [
        {"in": "path", "schema": schema}
    ]


def _responses(op, referred):
    """The operation's answers; its errors refer to components (added to referred), except on
    a rate-limited operation, whose answers carry the rate limit headers, or an error its
    feature describes: each of those is its own."""
    statuses = set(EVERY_OPERATION) | op.errors | set(op.error_texts)
    if op.body is not None:
        statuses |= {400, 413, 415}
    if op.arguments:
        statuses.add(400)
    answers = {}
    for status in sorted(statuses):
        text = op.error_texts.get(status)
        if op.limited or text is not None:
            answers[str(status)] = responses.error_response(status, text, op.limited)
        else:
            referred.add(status)
            answers[str(status)] = {"$ref": f"#/components/responses/{status}"}
    for status, answer in (op.responses or {200: {"description": "Success"}}).items():
        answers[str(status)] = {"description": answer["description"]}
        headers = dict(answer.get("headers") or {})
        if op.limited:
            headers.update(responses.header_refs(ratelimit.ANSWER_HEADERS))
        if headers:
            answers[str(status)]["headers"] = headers
        if answer.get("schema") is not None:
            answers[str(status)]["content"] = {"application/json": {"schema": answer["schema"]}}
    return dict(sorted(answers.items()))


@bp.get("/openapi.json")
@apidoc.response(
    200, "This document, its servers set to the URL it was served from.", {"type": "object"}
)
def openapi_document():
    """This OpenAPI document.

    The interface of the service: every operation with every status it can answer, the
    schemas of the bodies with the limits the service enforces, and the webhooks.
    """
    document = current_app.extensions.get("plantstore.openapi")
    if document is None:
        document = current_app.extensions["plantstore.openapi"] = build_spec(current_app)
    return {**document, "servers": [{"url": request.url_root.rstrip("/")}]}


def init_app(app):
    """Serve the document; it is built from app.url_map on the first request, all routes known."""
    app.register_blueprint(bp)
