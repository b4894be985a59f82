"""Decorators that describe an operation once, where its route is, and do what they describe.

``body`` and ``arguments`` load the request's body, query or path with their schema and hand the
loaded values to the view; ``response`` dumps what the view returns with its schema. Each also
annotates the view, and app/openapi/ reads the annotations while walking ``app.url_map``. A route
with no annotation is still documented, from its docstring, as public; ``hidden`` leaves one
out.

Put the authentication decorator above ``body``: a request is authenticated before its body is
read.
"""

import functools
from dataclasses import dataclass, field
from urllib.parse import unquote_plus, unquote_to_bytes

from flask import Response, request
from marshmallow import Schema, ValidationError

from . import body as request_body
from .jsonprovider import json_response

# Blueprint name -> tag description, filled by tag() as each blueprint module is imported.
_TAGS = {}


@dataclass
class Operation:
    """What the decorators said about one view."""

    hidden: bool = False
    # Needs a token; every other operation is public.
    secured: bool = False
    body: type | None = None
    # The media types the body may be sent as.
    media_types: tuple = request_body.JSON
    # Request headers the operation reads: name -> (description, example).
    request_headers: dict = field(default_factory=dict)
    arguments: dict = field(default_factory=dict)
    responses: dict = field(default_factory=dict)
    # Error statuses the document describes in its own words, and those described here:
    # status -> (description, an example message).
    errors: set = field(default_factory=set)
    error_texts: dict = field(default_factory=dict)
    # Counted by the rate limits: every answer may carry their headers.
    limited: bool = False


def example(schema):
    """An instance of a marshmallow Schema class made of its fields' first examples."""
    return {
        declared.data_key or name: declared.metadata["examples"][0]
        for name, declared in schema().fields.items()
        if "examples" in declared.metadata
    }


def operation_of(view):
    """The annotations of view, empty if it has none."""
    return getattr(view, "_apidoc", None) or Operation()


def _annotate(view, change):
    # functools.wraps copies __dict__: a wrapper and its view share one Operation.
    if "_apidoc" not in view.__dict__:
        view._apidoc = Operation()
    change(view._apidoc)
    return view


def tag(blueprint, description):
    """Describe the tag under which the operations of blueprint are listed; return blueprint."""
    _TAGS[blueprint.name] = description
    return blueprint


def tag_description(name):
    """The description given to tag() for a blueprint name, or None."""
    return _TAGS.get(name)


def hidden(view):
    """Leave this route out of the document (pages and assets for people, not for clients)."""
    return _annotate(view, lambda op: setattr(op, "hidden", True))


def secured(view):
    """Document this operation as needing a bearer token."""
    return _annotate(view, lambda op: setattr(op, "secured", True))


def body(schema, media_types=request_body.JSON):
    """Load the JSON request body, sent as one of media_types, with schema (a Schema class);
    the view gets it last."""
    loader = schema()

    def decorator(view):
        @functools.wraps(view)
        def with_body(*args, **kwargs):
            # A ValidationError that names no location is the body's (app/errors.py).
            return view(*args, loader.load(request_body.json_object(media_types)), **kwargs)

        def describe(op):
            op.body, op.media_types = schema, media_types

        return _annotate(with_body, describe)

    return decorator


def request_header(name, description, example):
    """A request header the operation reads, which the view reads itself."""
    return lambda view: _annotate(
        view, lambda op: op.request_headers.__setitem__(name, (description, example))
    )


def arguments(schema, location):
    """Load the query ("query") or the path variables ("path") with schema (a Schema class).

    The loaded query is the view's last positional argument; path variables, named in the rule
    as the schema's fields, are the view's keyword arguments, loaded. A query parameter given
    more than once, or whose value is not UTF-8, is a 400, whatever the schema.
    """
    loader = schema()

    def decorator(view):
        if location == "path":
            wrapper = _loading_path(view, loader)
        else:

            @functools.wraps(view)
            def wrapper(*args, **kwargs):
                return view(*args, _load(loader, _query(), "query"), **kwargs)

        return _annotate(wrapper, lambda op: op.arguments.__setitem__(location, schema))

    return decorator


def _load(loader, data, location):
    """loader.load(data); a ValidationError says where the input was, which Problem Details'
    errors point at: parameters by name, where a body's fields are JSON Pointers."""
    try:
        return loader.load(data)
    except ValidationError as error:
        raise ValidationError(error.messages, location=location) from None


def _query():
    """The request's query; a 400 naming each parameter given twice, or not UTF-8."""
    errors = {}
    for name, values in request.args.lists():
        if len(values) > 1:
            errors[name] = ["Must be given at most once."]
        # Werkzeug leaves bytes that are not UTF-8 percent-encoded in the value, as text.
        elif "%" in values[0] and name in _not_utf8(request.query_string):
            errors[name] = ["Must be percent-encoded UTF-8."]
    if errors:
        raise ValidationError(errors, location="query")
    return request.args


def _not_utf8(query_string):
    # The names of the parameters whose value is not UTF-8 once percent-decoded.
    names = set()
    for pair in query_string.split(b"&"):
        name, _, value = pair.partition(b"=")
        try:
            unquote_to_bytes(value.replace(b"+", b" ")).decode()
        except UnicodeDecodeError:
            names.add(unquote_plus(name.decode("latin-1")))
    return names


def _loading_path(view, loader):
    # Each variable is one field, deserialized alone: a whole load costs as much again. A
    # variable is named in the rule as the field is in the schema, in messages by its data_key.
    fields = loader.fields

    @functools.wraps(view)
    def with_path(*args, **variables):
        loaded = {}
        for name, value in variables.items():
            declared = fields[name]
            try:
                loaded[name] = declared.deserialize(value)
            except ValidationError as error:
                messages = {declared.data_key or name: error.messages}
                raise ValidationError(messages, location="path") from None
        return view(*args, **loaded)

    return with_path


def response(status, description, schema=None, headers=None):
    """A success answer: its status, description, body schema (None: no body) and headers.

    A marshmallow schema (a class, or an instance such as ``Schema(many=True)``) dumps what the
    view returns, or the first item of a (body, headers) tuple; a JSON Schema dict only documents.
    A Response the view returns (another answer, such as a 304) is left as it is.
    """
    answer = {"description": description, "schema": schema, "headers": headers or {}}
    dumper = schema() if isinstance(schema, type) else schema

    def decorator(view):
        if isinstance(dumper, Schema):
            view = _dumping(view, dumper)
        return _annotate(view, lambda op: op.responses.__setitem__(status, answer))

    return decorator


def _dumping(view, dumper):
    @functools.wraps(view)
    def with_dump(*args, **kwargs):
        result = view(*args, **kwargs)
        if isinstance(result, Response):
            return result
        if isinstance(result, tuple):
            return _answer(dumper.dump(result[0]), result[1:])
        return dumper.dump(result)

    return with_dump


def _answer(body, extras):
    # What Flask makes of (body, status, headers): Flask's own way costs a read 2% more.
    response = json_response(body)
    for extra in extras:
        if isinstance(extra, int):
            response.status_code = extra
        else:
            for name, value in extra.items():
                response.headers.add(name, value)
    return response


def errors(*statuses):
    """Error statuses of this operation beyond those the other annotations imply."""
    return lambda view: _annotate(view, lambda op: op.errors.update(statuses))


def error(status, description, example=None):
    """An error status of this operation, described in its feature's words.

    example is a message the service really gives with it (the document's own by default).
    """
    return lambda view: _annotate(
        view, lambda op: op.error_texts.__setitem__(status, (description, example))
    )


def limited(view):
    """Document this operation as counted by the rate limits."""
    return _annotate(view, lambda op: setattr(op, "limited", True))
