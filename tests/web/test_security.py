"""Security on every response: headers, cookies, the 500 page, cross-origin writes (Fetch Metadata and Origin, no
tokens), and the Host allow-list with the redirects it protects."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx2 import Headers

from app.config import Environment
from app.log import configure_logging
from app.main import create_app
from app.quiz.readmodels import DrawnView
from app.web.middleware.security import cross_site_routes
from app.web.templating.urls import named_routes
from tests.conftest import SettingsFactory
from tests.web.quizzes import HX, attempt_of, quiz_app, right_answer, start_api_attempt, state_of, table_counts

EXPECTED_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)


@pytest.fixture(scope="module")
def app_with_test_routes(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """The real app (its own SQLite file) plus two routes that exist only here, to crash."""
    from app.config import Settings
    from tests.conftest import TEST_SECRET

    var_dir = tmp_path_factory.mktemp("security")
    app = create_app(
        Settings(env=Environment.TEST, var_dir=var_dir, secret_key=TEST_SECRET, base_url="http://testserver")
    )

    @app.get("/en/boom")
    def boom() -> None:
        raise RuntimeError("deliberate failure")

    @app.get("/ko/boom")
    def boom_ko() -> None:
        raise RuntimeError("deliberate failure")

    @app.get("/api/v1/boom")
    def api_boom() -> None:
        raise RuntimeError("deliberate failure")

    @app.post("/{lang}/tomorrow/{item}")
    def added_tomorrow(lang: str, item: str) -> dict[str, str]:
        """A state-changing route that declares nothing: the cross-origin check must cover it anyway."""
        TOMORROW_WRITES.append(item)
        return {"stored": item}

    return app


TOMORROW_WRITES: list[str] = []


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
    assert get("x-frame-options") == "DENY"
    assert "camera=()" in headers["permissions-policy"]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 303),
        ("GET", "/en/", 200),
        ("GET", "/ko/guides/nvlink", 200),
        ("GET", "/ko/guides/nvlink?", 200),  # the same page again, from the page cache: the same headers
        ("GET", "/en/lab/topology", 200),
        ("GET", "/en/lab/", 308),
        ("GET", "/healthz", 200),
        ("GET", "/metrics", 200),
        ("GET", "/sitemap.xml", 200),
        ("GET", "/robots.txt", 200),
        ("GET", "/openapi.json", 200),
        ("GET", "/docs", 200),
        ("GET", "/static/css/site.css", 200),
        ("GET", "/static/no-such-file.css", 404),
        ("GET", "/en/no-such-page", 404),
        ("GET", "/api/v1/attempts/none", 404),
        ("POST", "/en/guides/nvlink", 405),
        ("GET", "/en/boom", 500),
        ("GET", "/api/v1/boom", 500),
        ("POST", "/api/v1/attempts/x/answers", 422),
    ],
)
def test_security_headers_on_every_response(test_client: TestClient, method: str, path: str, status: int) -> None:
    response = test_client.request(method, path, follow_redirects=False, json={} if method == "POST" else None)
    assert response.status_code == status
    assert_baseline_headers(response.headers)
    assert "strict-transport-security" not in response.headers


def test_the_refusals_of_the_outer_layers_carry_the_headers_too(test_client: TestClient) -> None:
    unknown_host = test_client.get("/en/", headers={"host": "evil.example"})
    too_deep = test_client.post(
        "/api/v1/attempts/x/answers", content=b"[" * 100 + b"]" * 100, headers={"content-type": "application/json"}
    )
    for response, status in ((unknown_host, 400), (too_deep, 422)):
        assert response.status_code == status
        assert_baseline_headers(response.headers)


@pytest.mark.parametrize(("lang", "message"), [("en", "Something went wrong on our side"), ("ko", "서버")])
def test_server_error_is_a_page_in_the_learners_language(test_client: TestClient, lang: str, message: str) -> None:
    response = test_client.get(f"/{lang}/boom")
    assert response.status_code == 500
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["cache-control"] == "no-store"
    assert f'<html lang="{lang}"' in response.text
    assert message in response.text
    assert "deliberate failure" not in response.text
    assert "Traceback" not in response.text


def test_server_error_in_the_api_is_json_in_the_learners_language(test_client: TestClient) -> None:
    api = test_client.get("/api/v1/boom")
    assert api.status_code == 500
    assert api.json() == {"detail": "Something went wrong on our side. Please try again."}
    korean = test_client.get("/api/v1/boom?lang=ko")
    assert korean.json() == {"detail": "서버에 문제가 생겼습니다. 다시 시도하십시오."}


def test_https_adds_hsts_and_a_host_prefixed_secure_cookie(app_with_test_routes: FastAPI) -> None:
    with TestClient(app_with_test_routes, base_url="https://testserver") as client:
        response = client.get("/en/")
    assert response.headers["strict-transport-security"].startswith("max-age=63072000")
    cookies = [c for c in response.headers.get_list("set-cookie") if c.startswith(("__Host-learner=", "__Host-lang="))]
    assert len(cookies) == 2
    for cookie in cookies:
        assert "Secure" in cookie
        assert "HttpOnly" in cookie
        assert "Path=/" in cookie
        assert "SameSite=Lax" in cookie
        assert "Domain" not in cookie


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


@pytest.mark.parametrize(
    "path", ["/static/css/site.css", "/healthz", "/en/guides/nvlink", "/ko/lab", "/en/lab/topology", "/sitemap.xml"]
)
def test_shared_pages_static_files_and_health_checks_set_no_cookie(app_with_test_routes: FastAPI, path: str) -> None:
    with TestClient(app_with_test_routes) as first_visit:
        assert first_visit.get(path).headers.get_list("set-cookie") == []


# --- cross-origin writes: Fetch Metadata and Origin --------------------------------------------------------------

FOREIGN = [
    pytest.param({"Sec-Fetch-Site": "cross-site"}, id="sec-fetch-site-cross-site"),
    pytest.param({"Sec-Fetch-Site": "same-site"}, id="sec-fetch-site-same-site"),  # a sibling subdomain
    pytest.param({"Sec-Fetch-Site": "cross-site", "Origin": "http://testserver"}, id="fetch-metadata-wins"),
    pytest.param({"Origin": "https://evil.example"}, id="foreign-origin"),
    pytest.param({"Origin": "null"}, id="opaque-origin"),  # a sandboxed frame, or a redirect across sites
    pytest.param({"Origin": "https://testserver"}, id="other-scheme"),
    pytest.param({"Origin": "http://testserver:8080"}, id="other-port"),
    pytest.param({"Origin": "http://evil.example", "Host": "evil.example"}, id="dns-rebinding"),
]
SAME_ORIGIN = [
    pytest.param({}, id="no-browser-headers"),
    pytest.param({"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"}, id="same-origin"),
    pytest.param({"Origin": "http://TestServer"}, id="origin-case"),
    pytest.param({"Sec-Fetch-Site": "none"}, id="user-initiated"),
]


@pytest.fixture
def quiz(database_url: str, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = quiz_app(database_url, make_settings)
    yield application
    state_of(application).database.dispose()


def _writes(application: FastAPI, client: TestClient) -> list[tuple[str, str, dict[str, Any]]]:
    """Every kind of state-changing request, as (method, path, request arguments), for this learner's attempt;
    in an order in which each succeeds (answers, then finishing, then starting over)."""
    attempt_id = start_api_attempt(client)["attempt_id"]
    first, second, third, *_ = attempt_of(application, client, attempt_id).questions

    def form(drawn: DrawnView) -> dict[str, Any]:
        answer = right_answer(drawn)
        return {"value": f"{answer['value']} {answer['unit']}"} if "value" in answer else {"tokens": answer["tokens"]}

    answer_url = f"/en/attempts/{attempt_id}/questions/"
    return [
        ("POST", answer_url + first.id, {"data": form(first)}),
        ("POST", answer_url + second.id, {"data": form(second), "headers": HX}),
        ("POST", f"/api/v1/attempts/{attempt_id}/answers", {"json": right_answer(third)}),
        ("POST", f"/en/attempts/{attempt_id}/finish", {}),
        ("POST", f"/api/v1/attempts/{attempt_id}/finish", {}),
        ("POST", "/en/guides/nvlink/quiz", {}),
        ("POST", "/ko/exam", {}),
        ("POST", "/api/v1/quizzes/nvlink/attempts", {}),
    ]


@pytest.mark.parametrize("attack", FOREIGN)
def test_no_cross_site_request_changes_anything(quiz: FastAPI, attack: dict[str, str]) -> None:
    with TestClient(quiz) as client:  # the learner's own cookie goes along, as if SameSite had not stopped it
        writes = _writes(quiz, client)
        before = table_counts(quiz)
        for method, path, arguments in writes:
            headers = arguments.get("headers", {}) | attack
            response = client.request(method, path, **(arguments | {"headers": headers}), follow_redirects=False)
            assert response.status_code == (400 if "Host" in attack else 403), (path, response.status_code)
            if response.status_code == 403:
                assert response.headers["cache-control"] == "no-store"
            if response.status_code == 403 and path.startswith("/api/"):
                assert response.json()["detail"] == "This request was refused: it did not come from this site."
            elif response.status_code == 403 and path.startswith("/ko/"):
                assert "요청이 거부되었습니다" in response.text
        assert table_counts(quiz) == before


@pytest.mark.parametrize("headers", SAME_ORIGIN)
def test_requests_from_the_site_itself_or_without_browser_headers_pass(quiz: FastAPI, headers: dict[str, str]) -> None:
    with TestClient(quiz) as client:
        for method, path, arguments in _writes(quiz, client):
            sent = arguments.get("headers", {}) | headers
            response = client.request(method, path, **(arguments | {"headers": sent}), follow_redirects=False)
            assert response.status_code in (200, 201, 303), (path, response.status_code, response.text[:200])


UNSAFE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
CROSS_SITE = [{"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}, {"Origin": "https://evil.example"}]
# The one route that takes cross-site posts on purpose (RFC 8058: the token in its URL is the authority).
ALLOWED_CROSS_SITE = {"newsletter_unsubscribe_post"}


def _example_path(route: Any) -> str:
    """A path the route matches: `ko` for the language, `x` for every other parameter."""
    return re.sub(r"\{[^}]+\}", "x", route.path_format.replace("{lang}", "ko"))


def test_every_unsafe_method_on_every_route_refuses_a_cross_site_request(app_with_test_routes: FastAPI) -> None:
    """Walks the app's routes, so a route added tomorrow is covered without anyone declaring anything: every
    POST/PUT/PATCH/DELETE from another site gets the 403 in the visitor's language, before the route runs."""
    routes = [route for _name, route in named_routes(app_with_test_routes.routes)]
    assert len(routes) > 50
    allowed = named_routes(cross_site_routes(app_with_test_routes.routes))
    allowed_requests = set()
    for name, route in allowed:
        assert name in ALLOWED_CROSS_SITE
        allowed_requests |= {(method, _example_path(route)) for method in route.methods}
    assert allowed_requests == {("POST", "/newsletter/unsubscribe/x")}
    refusal_api = "요청이 거부되었습니다. 이 사이트에서 보낸 요청이 아닙니다."
    checked = 0
    with TestClient(app_with_test_routes, raise_server_exceptions=False) as client:
        for route in routes:
            path = _example_path(route)
            for method in UNSAFE_METHODS:
                if (method, path) in allowed_requests:
                    continue
                for attack in CROSS_SITE:
                    headers = attack | {"Accept-Language": "ko", "Content-Type": "application/x-www-form-urlencoded"}
                    response = client.request(method, path, headers=headers, content=b"item=stolen")
                    assert response.status_code == 403, (method, path, attack, response.status_code)
                    assert response.headers["cache-control"] == "no-store"
                    if path.startswith("/api/") or path == "/openapi.json":
                        assert response.json() == {"detail": refusal_api}
                    else:  # the path's language, else the visitor's (Accept-Language)
                        title = "This request was refused" if path.startswith("/en/") else "요청이 거부되었습니다"
                        assert f'<h1 id="error-title">{title}</h1>' in response.text, (method, path)
                    checked += 1
        assert TOMORROW_WRITES == []
        # The same request from the site itself, or from a non-browser client, reaches the new route.
        assert client.post("/ko/tomorrow/mine", headers={"Origin": "http://testserver"}).json() == {"stored": "mine"}
        assert client.post("/ko/tomorrow/script").json() == {"stored": "script"}
    assert TOMORROW_WRITES == ["mine", "script"]
    assert checked > 50 * len(UNSAFE_METHODS) * len(CROSS_SITE)


def test_the_one_click_unsubscribe_alone_takes_cross_site_posts(app_with_test_routes: FastAPI) -> None:
    """Not refused as cross-site: it answers as the newsletter does for an unknown token (404), not 403."""
    with TestClient(app_with_test_routes) as client:
        for attack in CROSS_SITE:
            assert client.post("/newsletter/unsubscribe/unknown-token", headers=attack).status_code == 404
            assert client.put("/newsletter/unsubscribe/unknown-token", headers=attack).status_code == 403
            assert client.post("/newsletter/confirm/unknown-token", headers=attack).status_code == 403


def test_reading_across_origins_is_not_refused(test_client: TestClient) -> None:
    """Safe methods change nothing, so Fetch Metadata does not gate them: a link from another site still opens."""
    cross = {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}
    assert test_client.get("/en/guides/nvlink", headers=cross).status_code == 200
    assert test_client.get("/api/v1/links", headers=cross).status_code == 200


# --- the Host allow-list --------------------------------------------------------------------------------------

EVIL = {"host": "evil.example"}


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/en",
        "/en/",
        "/en/lab/",
        "/en/lab",
        "/en/guides/nvlink/",
        "/en/guides/nvlink",
        "/en/lab/topology",
        "/en/exam",
        "/sitemap.xml",
        "/robots.txt",
        "/healthz",
        "/static/css/site.css",
        "/api/v1/links",
        "/en/no-such-page",
    ],
)
def test_an_unknown_host_gets_400_and_never_a_redirect_to_it(test_client: TestClient, path: str) -> None:
    assert test_client.get(path, follow_redirects=False).status_code in (200, 303, 308, 404)  # warm the caches
    for method in ("GET", "HEAD"):
        response = test_client.request(method, path, headers=EVIL, follow_redirects=False)
        assert response.status_code == 400
        assert "location" not in response.headers
        assert "evil.example" not in response.text
        assert response.headers.get_list("set-cookie") == []


def test_trailing_slash_redirects_are_permanent_and_relative(test_client: TestClient) -> None:
    for path, target in (
        ("/en/lab/", "/en/lab"),
        ("/en", "/en/"),
        ("/ko/guides/nvlink/", "/ko/guides/nvlink"),
        ("/en/lab/topology/?gpu_a=1", "/en/lab/topology?gpu_a=1"),
    ):
        for method in ("GET", "HEAD"):
            response = test_client.request(method, path, follow_redirects=False)
            assert response.status_code == 308, path
            assert response.headers["location"] == target
    assert test_client.get("/en/no-such-page/", follow_redirects=False).status_code == 404
    assert test_client.post("/en/exam/", follow_redirects=False).status_code in (403, 404, 405)


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000"])
def test_development_serves_localhost_and_127_0_0_1_on_the_served_port(
    make_settings: SettingsFactory, host: str
) -> None:
    app = create_app(make_settings(env=Environment.DEVELOPMENT, base_url="http://127.0.0.1:8000"))
    origin = f"http://{host}"
    try:
        with TestClient(app, base_url=origin) as client:
            assert client.get("/en/").status_code == 200
            assert client.get("/en/lab/", follow_redirects=False).headers["location"] == "/en/lab"
            started = client.post("/api/v1/quizzes/nvlink/attempts", headers={"Origin": origin})
            assert started.status_code == 201
            form = client.post(
                "/en/guides/nvlink/quiz",
                headers={"Origin": origin, "Sec-Fetch-Site": "same-origin"},
                follow_redirects=False,
            )
            assert form.status_code == 303
            assert form.headers["location"].startswith("/en/attempts/")
            other_port = host.replace(":8000", ":8001")
            assert client.get("/en/", headers={"host": other_port}).status_code == 400
            assert client.get("/en/", headers={"host": "evil.example"}).status_code == 400
            refused = client.post("/api/v1/quizzes/nvlink/attempts", headers={"Origin": f"http://{other_port}"})
            assert refused.status_code == 403
    finally:
        state_of(app).database.dispose()


def test_production_trusts_only_its_own_origin(make_settings: SettingsFactory, tmp_path: Path) -> None:
    key_file = tmp_path / "certificate-keys.pem"
    key_file.write_bytes(Ed25519PrivateKey.generate().private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    app = create_app(
        make_settings(
            env=Environment.PRODUCTION,
            base_url="https://course.example",
            secret_key="p" * 40,
            certificate_key_file=key_file,
        )
    )
    configure_logging(make_settings())  # production logs JSON; the other tests read plain lines
    try:
        with TestClient(app, base_url="https://course.example") as client:
            assert client.get("/en/lab").status_code == 200
            for host in ("localhost", "127.0.0.1", "127.0.0.1:8000", "evil.example"):
                assert client.get("/en/lab", headers={"host": host}).status_code == 400
            assert (
                client.post("/api/v1/quizzes/nvlink/attempts", headers={"Origin": "http://localhost"}).status_code
                == 403
            )
    finally:
        state_of(app).database.dispose()
