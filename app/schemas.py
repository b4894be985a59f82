"""The JSON shapes of the contract, and strict reading of a JSON request body."""

import json

from flask import request
from marshmallow import EXCLUDE, Schema, ValidationError, fields, post_dump, validate
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge, UnsupportedMediaType

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
TEXT_MAX = 255


def _clean_text(value):
    if "\x00" in value:
        raise ValidationError("Must not contain a NUL character.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError("Must not contain an unpaired surrogate.") from None


class PlantSchema(Schema):
    """Plant: what a create answers, never with the id."""

    name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=TEXT_MAX), _clean_text],
        metadata={"description": "The name of the plant"},
    )
    tag = fields.String(
        validate=[validate.Length(max=TEXT_MAX), _clean_text],
        metadata={"description": "A tag that specifies the type of the plant"},
    )

    @post_dump
    def _omit_missing_tag(self, data, **kwargs):
        if data.get("tag") is None:
            data.pop("tag", None)
        return data


class NewPlantSchema(PlantSchema):
    """NewPlant: the body of a create; unknown keys are dropped."""

    class Meta:
        unknown = EXCLUDE

    id = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(min=INT64_MIN, max=INT64_MAX),
        metadata={"format": "int64", "description": "Identification number of the plant"},
    )


class ErrorSchema(Schema):
    """Error: the body of every error response."""

    error = fields.Integer(required=True, metadata={"format": "int32"})
    message = fields.String(required=True)


def _no_constants(name):
    raise ValueError(f"{name} is not JSON")


def _read_body():
    data = request.get_data(cache=False)
    # Werkzeug cuts a chunked body at the limit without a word: look for one more byte.
    if (
        request.content_length is None
        and len(data) >= request.max_content_length
        and request.environ["wsgi.input"].read(1)
    ):
        raise RequestEntityTooLarge()
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
