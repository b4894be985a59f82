"""The JSON shapes of plants: what a create takes and answers, what reads answer, and the ids."""

from marshmallow import EXCLUDE, Schema, fields, missing, validate

from ..validation import NO_NUL, TEXT_MAX, IntegerLiteral, clean_text

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
INT64_RANGE = validate.Range(min=INT64_MIN, max=INT64_MAX)
# What a name and a tag must be, wherever one is given.
NAME_RULES = [validate.Length(min=1, max=TEXT_MAX), clean_text]
TAG_RULES = [validate.Length(max=TEXT_MAX), clean_text]
NAME = {"description": "The name of the plant", "examples": ["Monstera"], "pattern": NO_NUL}
TAG = {
    "description": "A tag that specifies the type of the plant",
    "examples": ["tropical"],
    "pattern": NO_NUL,
}


class OptionalString(fields.String):
    """A string that is left out of the output, rather than written as null, when it is None."""

    def _serialize(self, value, attr, obj, **kwargs):
        return missing if value is None else super()._serialize(value, attr, obj, **kwargs)


class PlantSchema(Schema):
    """Plant: what a create answers, never with the id."""

    name = fields.String(required=True, validate=NAME_RULES, metadata=NAME)
    tag = OptionalString(validate=TAG_RULES, metadata=TAG)


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


class PlantChangeSchema(Schema):
    """PlantChange: the body of a PATCH, a JSON Merge Patch of a StoredPlant; unknown keys are
    dropped."""

    class Meta:
        unknown = EXCLUDE

    id = fields.Integer(
        strict=True,
        validate=INT64_RANGE,
        metadata={
            "format": "int64",
            "description": "Ignored when it is the id in the path; any other id is refused",
            "examples": [1],
        },
    )
    name = fields.String(validate=NAME_RULES, metadata=NAME)
    tag = fields.String(
        allow_none=True,
        validate=TAG_RULES,
        metadata={
            **TAG,
            "description": "A tag that specifies the type of the plant; null removes it",
        },
    )


class PlantIdSchema(Schema):
    """The {id} of /plants/{id}."""

    plant_id = IntegerLiteral(
        data_key="id",
        required=True,
        validate=INT64_RANGE,
        metadata={"format": "int64", "description": "The id of the plant", "examples": [1]},
    )


class ListQuerySchema(Schema):
    """The query of GET /plants: a page of at most limit plants with ids above after, only
    those whose tag is exactly tag when it is given.

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
    tag = fields.String(
        validate=[validate.Length(min=1, max=TEXT_MAX), clean_text],
        metadata={
            "description": "Only plants whose tag is exactly this one (case-sensitive, no "
            "prefix match); 1 to 255 characters, given at most once",
            "pattern": NO_NUL,
            "examples": ["tropical"],
        },
    )
