"""GET /docs: Swagger UI on /openapi.json, every asset served by the service itself."""

import pathlib

import flask_swagger_ui
from flask import Blueprint, send_from_directory
from werkzeug.exceptions import NotFound

from .. import apidoc

OWN_ASSETS = pathlib.Path(__file__).parent / "docs_assets"
# Swagger UI's own build, as the flask-swagger-ui package ships it: no CDN, no internet needed.
SWAGGER_UI = pathlib.Path(flask_swagger_ui.__file__).parent / "dist"
SWAGGER_UI_ASSETS = frozenset(
    ("swagger-ui-bundle.js", "swagger-ui.css", "index.css", "favicon-32x32.png")
)
# Only this origin: no inline script, no third-party host, no framing. Swagger UI's stylesheet
# draws its icons as data: SVG images, which are inert.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

bp = Blueprint("docs", __name__)


@bp.get("/docs")
@apidoc.hidden
def docs_page():
    """The interactive page of the interface."""
    response = send_from_directory(OWN_ASSETS, "index.html")
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return response


@bp.get("/docs/<name>")
@apidoc.hidden
def docs_asset(name):
    """A script, stylesheet or icon of the page."""
    if name in SWAGGER_UI_ASSETS:
        return send_from_directory(SWAGGER_UI, name)
    if name == "swagger-initializer.js":
        return send_from_directory(OWN_ASSETS, name)
    raise NotFound()


def init_app(app):
    """Serve the page and its assets (no token needed)."""
    app.register_blueprint(bp)
