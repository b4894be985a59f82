"""The document's error answers: what each status means, and the headers each carries.

The statuses here are the service's own, whatever the operation: a feature describes its own
(a plant's 404 and 409, a token's 401 and 403, a rate limit's 429) where its routes are.
"""

from .. import problems, ratelimit

# Per error status: what it means, and a message the service really gives with it.
ERRORS = {
    400: (
        "The request is malformed: the message names every offending field.",
        "id: Missing data for required field.",
    ),
    404: ("No such resource: the path is unknown.", "There is nothing at this path."),
    405: (
        "The path does not take this method; the Allow header lists those it takes.",
        "The method PUT is not allowed here; the Allow header lists those that are.",
    ),
    413: (
        "The request body is larger than the limit, PLANTSTORE_MAX_CONTENT_LENGTH.",
        "The request body is larger than 65536 bytes, the limit that "
        "PLANTSTORE_MAX_CONTENT_LENGTH sets.",
    ),
    415: ("The request body is not application/json.", "Content-Type must be application/json."),
    500: (
        "An unexpected fault; the log has its details under the request id.",
        "internal server error",
    ),
    503: (
        "The database does not answer in time, or its schema is missing or behind.",
        "database unavailable",
    ),
}
# What each offending field of a 400 looks like in Problem Details.
INVALID = [{"detail": "Missing data for required field.", "pointer": "#/id"}]
ERROR_HEADERS = {
    401: {"WWW-Authenticate": 'The Bearer challenge; error="invalid_token" for a refused token'},
    405: {"Allow": "The methods this path takes"},
}
# Routing answers these before the token is counted.
UNCOUNTED = {405}


def error_response(status, text=None, limited=False):
    """The Error answer of status, described by text (description, example message) or by the
    service's own words; limited: of a rate-limited operation, with the rate limit's headers."""
    description, message = ERRORS.get(status, (None, None))
    if text is not None:
        description, message = text[0], text[1] or message
    if limited and status == 503:
        description += ratelimit.STORE_UNAVAILABLE
    if status == 503:
        description += " Retry-After says when to try again."
    problem = problems.problem(status, message)
    if status == 400:
        problem["errors"] = INVALID
    response = {
        "description": description,
        "content": {
            "application/json": {
                "schema": "Error",
                "example": {"error": status, "message": message},
            },
            problems.PROBLEM: {"schema": "Problem", "example": problem},
        },
    }
    headers = {
        name: {"description": said, "schema": {"type": "string"}}
        for name, said in ERROR_HEADERS.get(status, {}).items()
    }
    if limited and status not in UNCOUNTED:
        headers.update(header_refs(ratelimit.ANSWER_HEADERS))
    if status == 503 or (limited and status == 429):
        headers.update(header_refs(["Retry-After"]))
    if headers:
        response["headers"] = headers
    return response


def header_refs(names):
    """References to the headers declared once under components, by name."""
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}
