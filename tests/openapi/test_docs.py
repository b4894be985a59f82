"""GET /docs: Swagger UI served by the service itself, and used in a real browser."""

import re
import shutil
from types import SimpleNamespace

import pytest
from playwright.sync_api import sync_playwright

from support.tokens import TOKEN

pytestmark = pytest.mark.backend_independent

ASSETS = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-initializer.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "index.css": "text/css",
    "favicon-32x32.png": "image/png",
}


@pytest.fixture
def browser():
    """Headless Chromium (Debian's) driven by Playwright: .page, and .errors, the console errors
    of the page (a script or asset that the Content-Security-Policy blocked included).

    Skips where Chromium is absent.
    """
    executable = shutil.which("chromium")
    if executable is None:
        pytest.skip("needs Debian's chromium (apt-get install chromium), which .ci/run installs")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable)
        page = chromium.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(20_000)
        errors = []
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield SimpleNamespace(page=page, errors=errors)
        chromium.close()


def test_page_needs_no_token_and_allows_only_its_own_origin(client):
    with client.get("/docs") as response:
        page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    policy = dict(
        directive.strip().split(" ", 1)
        for directive in response.headers["Content-Security-Policy"].split(";")
    )
    assert policy["default-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert "script-src" not in policy and "style-src" not in policy  # 'self' alone, no inline
    assert not re.search(r"(https?:)?//", page)


def test_page_loads_only_assets_the_service_serves_without_a_token(client):
    with client.get("/docs") as response:
        page = response.get_data(as_text=True)
    assert set(re.findall(r'(?:src|href)="docs/([^"]+)"', page)) == set(ASSETS)


@pytest.mark.parametrize(("name", "mimetype"), ASSETS.items())
def test_each_asset_is_served_without_a_token(client, name, mimetype):
    with client.get(f"/docs/{name}") as response:
        assert response.status_code == 200
        assert response.mimetype == mimetype
        assert len(response.get_data()) > 0


@pytest.mark.parametrize("name", ["index.html", "oauth2-redirect.html", "..%2Fdocs.py", "nope.js"])
def test_anything_else_under_docs_is_a_404_error(client, name):
    response = client.get(f"/docs/{name}")
    assert response.status_code == 404
    assert response.get_json()["error"] == 404


def test_only_the_page_carries_the_policy(client, auth_headers):
    assert "Content-Security-Policy" not in client.get("/openapi.json").headers
    assert "Content-Security-Policy" not in client.get("/plants", headers=auth_headers).headers


def test_page_and_assets_are_not_in_the_document(client):
    paths = client.get("/openapi.json").get_json()["paths"]
    assert not [path for path in paths if path.startswith("/docs")]


@pytest.mark.e2e
def test_try_it_out_in_chromium_after_authorizing(live_server, browser, tmp_path):
    server = live_server(f"sqlite:///{tmp_path / 'plantstore.sqlite'}")
    assert server.request("POST", "/plants", {"id": 7, "name": "Monstera"}).status == 200
    document = server.request("GET", "/openapi.json").json()
    page = browser.page
    page.goto(f"http://127.0.0.1:{server.port}/docs")

    page.locator(".opblock").first.wait_for()
    shown = {
        (
            block.locator(".opblock-summary-method").inner_text(),
            block.locator(".opblock-summary-path, .opblock-summary-path__deprecated")
            .inner_text()
            .replace("\u200b", ""),
        )
        for block in page.locator(".opblock").all()
    }
    documented = {
        (method.upper(), path)
        for section in ("paths", "webhooks")
        for path, operations in document[section].items()
        for method in operations
    }
    assert shown == documented

    page.locator(".auth-wrapper .authorize").click()
    page.locator(".modal-ux input").fill(TOKEN)
    page.locator(".modal-ux .auth-btn-wrapper .authorize").click()
    page.locator(".modal-ux .btn-done").click()

    operation = page.locator("#operations-plants-listPlants")
    operation.locator(".opblock-summary").click()
    operation.locator(".try-out__btn").click()
    operation.locator(".execute").click()
    status = operation.locator(".live-responses-table .response .response-col_status")
    status.wait_for()
    page.screenshot(path=tmp_path / "docs.png", full_page=True)
    assert status.inner_text().strip().startswith("200")
    assert '"Monstera"' in operation.locator(".live-responses-table .microlight").first.inner_text()
    assert browser.errors == []
