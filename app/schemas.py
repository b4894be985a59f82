"""The JSON shapes of the contract, and strict reading of a JSON request body."""

import json
import re

from flask import request
from gunicorn.http.errors import ParseException
from marshmallow import EXCLUDE, Schema, ValidationError, fields, missing, validate
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge, UnsupportedMediaType

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
TEXT_MAX = 255
INT64_RANGE = validate.Range(min=INT64_MIN, max=INT64_MAX)


def _clean_text(value):
    if "\x00" in value:
        raise ValidationError("Must not contain a NUL character.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError("Must not contain an unpaired surrogate.") from None


class OptionalString(fields.String):
    """A string that is left out of the output, rather than written as null, when it is None."""

    def _serialize(self, value, attr, obj, **kwargs):
        return missing if value is None else super()._serialize(value, attr, obj, **kwargs)


class PlantSchema(Schema):
    """Plant: what a create answers, never with the id."""

    name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=TEXT_MAX), _clean_text],
        metadata={"description": "The name of the plant", "examples": ["Monstera"]},
    )
    tag = OptionalString(
        validate=[validate.Length(max=TEXT_MAX), _clean_text],
        metadata={
            "description": "A tag that specifies the type of the plant",
            "examples": ["tropical"],
        },
    )


class NewPlantSchema(PlantSchema):
    """NewPlant: the body of a create; unknown keys are dropped."""

    class Meta:
        unknown = EXCLUDE

    id = fields.Integer(
        required=True,
        strict=True,
        validate=INT64_RANGE,
        metadata={
            "format": "int64",
            # JSON Schema 2020-12 counts 1.0 as an integer; the service does not.
            "description": "Identification number of the plant: a JSON integer written "
            "without a fraction or exponent (1.0 is refused)",
            "examples": [1],
        },
    )


class StoredPlantSchema(NewPlantSchema):
    """StoredPlant: what the GET endpoints answer, the id included."""


class IntegerLiteral(fields.Integer):
    """An integer written in a URL as decimal digits with an optional minus sign."""

    LITERAL = re.compile(r"-?[0-9]{1,19}")

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, str) or not self.LITERAL.fullmatch(value):
            raise self.make_error("invalid")
        return super()._deserialize(int(value), attr, data, **kwargs)


class PlantIdSchema(Schema):
    """The {id} of /plants/{id}."""

    id = IntegerLiteral(
        required=True,
        validate=INT64_RANGE,
        metadata={"format": "int64", "description": "The id of the plant", "examples": [1]},
    )


class ListQuerySchema(Schema):
    """The query of GET /plants: a page of at most limit plants with ids above after.

    Unknown parameters are refused, so a typo such as ``limt`` is not silently ignored.
    """

    limit = IntegerLiteral(
        load_default=100,
        validate=validate.Range(min=1, max=1000),
        metadata={"description": "Most plants in one page", "default": 100, "examples": [2]},
    )
    after = IntegerLiteral(
        validate=INT64_RANGE,
        metadata={
            "format": "int64",
            "description": "Only plants with a larger id",
            "examples": [1],
        },
    )


class ErrorSchema(Schema):
    """Error: the body of every error response."""

    error = fields.Integer(
        required=True,
        metadata={
            "format": "int32",
            "description": "The HTTP status code of the response",
            "examples": [404],
        },
    )
    message = fields.String(
        required=True,
        metadata={
            "description": "One sentence; for a bad body it names every offending field",
            "examples": ["There is no plant with this id."],
        },
    )


def _no_constants(name):
    raise ValueError(f"{name} is not JSON")


def _read_body():
    try:
        data = request.get_data(cache=False)
        # Werkzeug cuts a chunked body at the limit without a word: look for one more byte.
        too_large = (
            request.content_length is None
            and len(data) >= request.max_content_length
            and request.environ["wsgi.input"].read(1)
        )
    except (ParseException, OSError):
        # gunicorn raises these reading a malformed or cut-off chunked body.
        raise BadRequest("The request body's chunked framing is malformed.") from None
    if too_large:
        raise RequestEntityTooLarge()
    # gunicorn hands over what came before the client closed, however short of Content-Length.
    if request.content_length is not None and len(data) < request.content_length:
        raise BadRequest("The request body ended before its Content-Length.")
    return data


def load_json_body(schema):
    """Read the request body as strict UTF-8 JSON holding an object, and load it with schema."""
    if request.mimetype != "application/json":
        raise UnsupportedMediaType("Content-Type must be application/json.")
    try:
        data = json.loads(_read_body().decode("utf-8"), parse_constant=_no_constants)
    except (ValueError, RecursionError):
        raise BadRequest("The request body is not valid UTF-8 JSON.") from None
    if not isinstance(data, dict):
        raise BadRequest("The request body must be a JSON object.")
    return schema.load(data)
