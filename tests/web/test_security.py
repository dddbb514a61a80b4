from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx2 import Headers

from app.main import create_app
from app.web.csrf import ApiOriginDep, CsrfDep, csrf_token
from app.web.identity import SECURE_COOKIE_NAME
from app.web.security import CONTENT_SECURITY_POLICY
from tests.conftest import TEST_SECRET, SettingsFactory

EXPECTED_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)


@pytest.fixture
def app_with_test_routes(make_settings: SettingsFactory) -> FastAPI:
    """The real app plus routes that exist only here: a crash, and state-changing endpoints to protect."""
    app = create_app(make_settings())

    @app.get("/en/boom")
    def boom() -> None:
        raise RuntimeError("deliberate failure")

    @app.get("/api/v1/boom")
    def api_boom() -> None:
        raise RuntimeError("deliberate failure")

    @app.post("/en/protected")
    def protected(_csrf: CsrfDep) -> dict[str, bool]:
        return {"ok": True}

    @app.post("/api/v1/protected")
    def api_protected(_origin: ApiOriginDep) -> dict[str, bool]:
        return {"ok": True}

    return app


@pytest.fixture
def test_client(app_with_test_routes: FastAPI) -> Iterator[TestClient]:
    with TestClient(app_with_test_routes, raise_server_exceptions=False) as client:
        yield client


def assert_baseline_headers(headers: Headers) -> None:
    get = headers.get
    assert get("content-security-policy") == EXPECTED_CSP
    assert get("x-content-type-options") == "nosniff"
    assert get("referrer-policy") == "same-origin"
    assert get("cross-origin-opener-policy") == "same-origin"
    assert get("cross-origin-resource-policy") == "same-origin"
    assert "camera=()" in headers["permissions-policy"]


def test_policy_constant_is_the_required_one() -> None:
    assert CONTENT_SECURITY_POLICY == EXPECTED_CSP


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/", 303),
        ("/en/", 200),
        ("/ko/guides/nvlink", 200),
        ("/healthz", 200),
        ("/metrics", 200),
        ("/sitemap.xml", 200),
        ("/robots.txt", 200),
        ("/openapi.json", 200),
        ("/docs", 200),
        ("/static/css/site.css", 200),
        ("/static/no-such-file.css", 404),
        ("/en/no-such-page", 404),
        ("/en/boom", 500),
        ("/api/v1/boom", 500),
    ],
)
def test_security_headers_on_every_response(test_client: TestClient, path: str, status: int) -> None:
    response = test_client.get(path, follow_redirects=False)
    assert response.status_code == status
    assert_baseline_headers(response.headers)
    assert "strict-transport-security" not in response.headers


def test_server_error_is_a_page_in_the_learners_language(test_client: TestClient) -> None:
    response = test_client.get("/en/boom")
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.text
    assert "deliberate failure" not in response.text
    api = test_client.get("/api/v1/boom")
    assert api.status_code == 500
    assert api.json() == {"detail": "Internal server error."}


def test_https_adds_hsts_and_a_host_prefixed_secure_cookie(app_with_test_routes: FastAPI) -> None:
    with TestClient(app_with_test_routes, base_url="https://testserver") as client:
        response = client.get("/en/")
    assert response.headers["strict-transport-security"].startswith("max-age=63072000")
    learner_cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith(SECURE_COOKIE_NAME))
    assert "Secure" in learner_cookie
    assert "HttpOnly" in learner_cookie
    assert "Path=/" in learner_cookie
    assert "SameSite=Lax" in learner_cookie
    assert "Domain" not in learner_cookie


def test_learner_cookie_is_signed_httponly_lax_and_set_once(test_client: TestClient) -> None:
    first = test_client.get("/en/")
    cookie = next(c for c in first.headers.get_list("set-cookie") if c.startswith("learner="))
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Secure" not in cookie
    assert not [c for c in test_client.get("/en/").headers.get_list("set-cookie") if c.startswith("learner=")]


def test_tampered_learner_cookie_is_replaced(test_client: TestClient) -> None:
    test_client.cookies.set("learner", "forged.value")
    response = test_client.get("/en/")
    assert any(c.startswith("learner=") for c in response.headers.get_list("set-cookie"))


def test_static_files_and_health_checks_set_no_cookie(test_client: TestClient) -> None:
    for path in ("/static/css/site.css", "/healthz"):
        assert test_client.get(path).headers.get_list("set-cookie") == []


def _token_for(client: TestClient) -> str:
    client.get("/en/")
    learner_cookie = client.cookies.get("learner")
    assert learner_cookie is not None
    from itsdangerous import URLSafeSerializer

    learner_id = URLSafeSerializer(TEST_SECRET, salt="learner-id").loads(learner_cookie)
    return csrf_token(TEST_SECRET, learner_id)


def test_csrf_token_is_in_pages_for_forms_and_htmx(test_client: TestClient) -> None:
    token = _token_for(test_client)
    assert f'"X-CSRF-Token": "{token}"' in test_client.get("/en/").text


def test_csrf_accepts_the_token_in_a_form_or_header(test_client: TestClient) -> None:
    token = _token_for(test_client)
    form = test_client.post("/en/protected", data={"csrf_token": token})
    assert form.status_code == 200
    htmx = test_client.post("/en/protected", headers={"X-CSRF-Token": token, "Origin": "http://testserver"})
    assert htmx.status_code == 200


@pytest.mark.parametrize(
    ("headers", "data"),
    [
        ({}, {}),
        ({}, {"csrf_token": "wrong"}),
        ({"X-CSRF-Token": "wrong"}, {}),
    ],
)
def test_csrf_rejects_missing_or_wrong_tokens(
    test_client: TestClient, headers: dict[str, str], data: dict[str, str]
) -> None:
    _token_for(test_client)
    response = test_client.post("/en/protected", headers=headers, data=data)
    assert response.status_code == 403
    assert "Reload the page and try again" in response.text


def test_csrf_rejects_a_foreign_origin_even_with_a_valid_token(test_client: TestClient) -> None:
    token = _token_for(test_client)
    response = test_client.post("/en/protected", data={"csrf_token": token}, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403


def test_csrf_refusal_is_in_korean_on_korean_paths(app_with_test_routes: FastAPI) -> None:
    @app_with_test_routes.post("/ko/protected")
    def protected_ko(_csrf: CsrfDep) -> dict[str, bool]:
        return {"ok": True}

    with TestClient(app_with_test_routes) as client:
        response = client.post("/ko/protected")
    assert response.status_code == 403
    assert "새로고침" in response.text


def test_api_allows_tools_without_origin_and_refuses_foreign_origins(test_client: TestClient) -> None:
    assert test_client.post("/api/v1/protected").status_code == 200
    assert test_client.post("/api/v1/protected", headers={"Origin": "http://testserver"}).status_code == 200
    refused = test_client.post("/api/v1/protected", headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403
    assert refused.json() == {"detail": "cross-origin"}


def test_shared_chapter_page_carries_each_learners_own_token(app_with_test_routes: FastAPI) -> None:
    tokens = []
    for _ in range(2):
        with TestClient(app_with_test_routes) as client:
            page = client.get("/en/guides/nvlink").text
            token = _token_for(client)
            assert f'"X-CSRF-Token": "{token}"' in page
            assert "\x00" not in page
            tokens.append(token)
    assert tokens[0] != tokens[1]
