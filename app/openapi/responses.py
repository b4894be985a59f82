"""The document's error answers: what each status means, and the headers each carries."""

# Per error status: what it means, and a message the service really gives with it.
ERRORS = {
    400: (
        "The request is malformed: the message names every offending field.",
        "id: Missing data for required field.",
    ),
    401: (
        "No bearer token, or one that is unknown, revoked or expired.",
        "A bearer token is required.",
    ),
    403: ("The token is read-only.", "This token is read-only."),
    404: (
        "No such resource: an unknown path, or no plant with this id.",
        "There is no plant with this id.",
    ),
    405: (
        "The path does not take this method; the Allow header lists those it takes.",
        "method not allowed",
    ),
    409: (
        "A different plant with this id already exists.",
        "A different plant with id 1 already exists.",
    ),
    413: ("The request body is larger than the limit.", "request entity too large"),
    415: ("The request body is not application/json.", "Content-Type must be application/json."),
    429: (
        "Past the rate limit of the token, or, for a request that fails authentication, of its "
        "address; the request had no effect. Retry-After says when to try again.",
        "Too many requests: the limit is 100 per 1 second.",
    ),
    500: (
        "An unexpected fault; the log has its details under the request id.",
        "internal server error",
    ),
    503: (
        "The database does not answer in time, or its schema is missing or behind.",
        "database unavailable",
    ),
}
ERROR_HEADERS = {
    401: {"WWW-Authenticate": 'The Bearer challenge; error="invalid_token" for a refused token'},
    405: {"Allow": "The methods this path takes"},
}
# Headers declared once, under components, and referred to by name.
HEADERS = {
    "Retry-After": "Whole seconds to wait before trying again, at least 1: on a 429, and on a "
    "503 from the rate limit store.",
    "X-RateLimit-Limit": "While a rate limit applies: the requests it allows in its window "
    "(of the limit closest to refusing).",
    "X-RateLimit-Remaining": "While a rate limit applies: the requests it still allows now.",
    "X-RateLimit-Reset": "While a rate limit applies: when a request is allowed again, in Unix "
    "time (seconds).",
}
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
# Routing answers these before the token is counted.
UNCOUNTED = {405}
STORE_UNAVAILABLE = " Or the rate limit store does not, with PLANTSTORE_RATE_LIMIT_FAIL=closed."


def error_response(status, limited=False):
    """The Error answer of status; limited: of a rate-limited operation, with its headers."""
    description, message = ERRORS[status]
    if limited and status == 503:
        description += STORE_UNAVAILABLE
    content = {"schema": "Error", "example": {"error": status, "message": message}}
    response = {"description": description, "content": {"application/json": content}}
    headers = {
        name: {"description": text, "schema": {"type": "string"}}
        for name, text in ERROR_HEADERS.get(status, {}).items()
    }
    if limited and status not in UNCOUNTED:
        headers.update(header_refs(RATE_LIMIT_HEADERS))
    if limited and status in (429, 503):
        headers.update(header_refs(["Retry-After"]))
    if headers:
        response["headers"] = headers
    return response


def header_refs(names):
    """References to the headers declared once under components, by name."""
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}
