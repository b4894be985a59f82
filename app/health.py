"""GET /healthz (readiness: is the database there and ready?) and GET /livez (liveness)."""

from flask import Blueprint, current_app

from . import apidoc
from .database import SchemaBehind, SchemaMissing, get_db, schema_of

bp = apidoc.tag(
    Blueprint("health", __name__),
    "Whether the service can serve: for load balancers and orchestrators.",
)

HEALTHY = {
    "type": "object",
    "properties": {"status": {"type": "string", "enum": ["ok"]}},
    "required": ["status"],
    "examples": [{"status": "ok"}],
}


@bp.get("/healthz")
@apidoc.response(200, "The service and its database answer", HEALTHY)
@apidoc.errors(503)
def healthz():
    """Report whether the service can reach its database.

    Ready when the database answers in time and has the service's schema; a 503 otherwise.
    """
    schema = schema_of(current_app)
    try:
        get_db().ping()
    except SchemaMissing:
        schema.is_behind()  # logs, once, which revision the database is at
        raise
    if schema.is_behind():
        raise SchemaBehind()
    return {"status": "ok"}


@bp.get("/livez")
@apidoc.response(200, "The process serves requests", HEALTHY)
def livez():
    """Report that the process serves requests; touches no database.

    Liveness: 200 whenever the process answers, whether or not the database does.
    """
    return {"status": "ok"}


def init_app(app):
    """Serve /healthz and /livez."""
    app.register_blueprint(bp)
