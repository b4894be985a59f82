"""The queries and path ids of /webhooks: a page of endpoints, an endpoint's id in a path, and
what the delivery log's shapes share with them (a limit, an id's pattern)."""

from marshmallow import Schema, ValidationError, fields, validate

from ...validation import IntegerLiteral
from ..tables.endpoints import ID_LENGTH


class Pattern(validate.Regexp):
    """A string the whole of which matches regex (a JSON Schema pattern, in ^ and $)."""

    def __call__(self, value):
        """value, or ValidationError when the pattern does not match all of it."""
        if self.regex.fullmatch(value) is None:
            raise ValidationError(self._format_error(value))
        return value


ENDPOINT_ID = Pattern(f"^[A-Za-z0-9_-]{{1,{ID_LENGTH}}}$", error="Not a valid id.")
EXAMPLE_ID = "ep_Jq3vX0bqkA2mXcT7yZ9o1w"
LIMIT = validate.Range(min=1, max=1000)


class EndpointListQuerySchema(Schema):
    """The query of GET /webhooks: a page of at most limit endpoints with ids above after."""

    limit = IntegerLiteral(
        load_default=100,
        validate=LIMIT,
        metadata={"description": "Most endpoints in one page", "default": 100, "examples": [2]},
    )
    after = fields.String(
        validate=ENDPOINT_ID,
        metadata={
            "description": "Only endpoints with a larger id",
            "examples": [EXAMPLE_ID],
        },
    )


def endpoint_id_field():
    """The {id} of a path under /webhooks/."""
    return fields.String(
        data_key="id",
        required=True,
        validate=ENDPOINT_ID,
        metadata={
            "description": "The id of the endpoint",
            "examples": [EXAMPLE_ID],
        },
    )


class EndpointIdSchema(Schema):
    """The {id} of /webhooks/{id}."""

    endpoint_id = endpoint_id_field()
