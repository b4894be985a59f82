"""Decorators that describe an operation where its route is, for the OpenAPI document.

They only annotate the view; ``openapi.py`` reads the annotations while walking ``app.url_map``.
A route with no annotation is still documented, from its docstring; ``hidden`` leaves one out.
"""

from dataclasses import dataclass, field

# Blueprint name -> tag description, filled by tag() as each blueprint module is imported.
_TAGS = {}


@dataclass
class Operation:
    """What the decorators said about one view."""

    hidden: bool = False
    public: bool = False
    body: type | None = None
    arguments: dict = field(default_factory=dict)
    responses: dict = field(default_factory=dict)
    errors: set = field(default_factory=set)


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


def _annotate(change):
    def decorator(view):
        if "_apidoc" not in view.__dict__:
            view._apidoc = Operation()
        change(view._apidoc)
        return view

    return decorator


def tag(blueprint, description):
    """Describe the tag under which the operations of blueprint are listed; return blueprint."""
    _TAGS[blueprint.name] = description
    return blueprint


def tag_description(name):
    """The description given to tag() for a blueprint name, or None."""
    return _TAGS.get(name)


def hidden(view):
    """Leave this route out of the document (pages and assets for people, not for clients)."""
    return _annotate(lambda op: setattr(op, "hidden", True))(view)


def public(view):
    """Document this operation as needing no token."""
    return _annotate(lambda op: setattr(op, "public", True))(view)


def body(schema):
    """The JSON request body is loaded with schema (a marshmallow Schema class)."""
    return _annotate(lambda op: setattr(op, "body", schema))


def arguments(schema, location):
    """The query or path parameters (location) are loaded with schema."""
    return _annotate(lambda op: op.arguments.__setitem__(location, schema))


def response(status, description, schema=None, headers=None):
    """A success answer: its status, description, body schema (None: no body) and headers."""
    answer = {"description": description, "schema": schema, "headers": headers or {}}
    return _annotate(lambda op: op.responses.__setitem__(status, answer))


def errors(*statuses):
    """Error statuses of this operation beyond those the other annotations imply."""
    return _annotate(lambda op: op.errors.update(statuses))
