"""Pages that are the same for everyone are the same bytes for everyone, so any cache may keep them: no cookie,
`Cache-Control: public`, a strong ETag and 304, gzip once with `Vary: Accept-Encoding`; HEAD wherever GET works;
static files under content-hashed URLs, immutable; per-learner pages never stored."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx2 import Response

from app.web.cache_policy import IMMUTABLE, REVALIDATE, SHARED_PAGE
from app.web.templating import STATIC_DIR
from tests.conftest import SettingsFactory
from tests.web.html import parse
from tests.web.quizzes import HX, quiz_app, start_page_attempt, state_of

SHARED = ["/en/guides/nvlink", "/ko/guides/nvlink", "/en/lab", "/ko/lab", "/en/lab/topology", "/ko/lab/ring-allreduce"]
IDENTITY = {"accept-encoding": "identity"}
GZIP = {"accept-encoding": "gzip"}
NEGOTIATED = ("content-type", "cache-control", "etag", "vary", "content-encoding", "content-length")


def vary(response: Response) -> set[str]:
    return {item.strip().lower() for item in response.headers.get("vary", "").split(",") if item.strip()}


@pytest.fixture
def visitors(shared_app: FastAPI) -> Iterator[tuple[TestClient, TestClient, TestClient]]:
    """A first-time visitor, another one, and a returning learner with a learner cookie and a language cookie."""
    with TestClient(shared_app) as first, TestClient(shared_app) as second, TestClient(shared_app) as learner:
        learner.get("/ko/")
        assert learner.cookies.get("learner")
        assert learner.cookies.get("lang") == "ko"
        yield first, second, learner


@pytest.mark.parametrize("path", SHARED)
@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_every_visitor_gets_the_same_bytes_and_no_cookie(
    visitors: tuple[TestClient, TestClient, TestClient], path: str, headers: dict[str, str]
) -> None:
    responses = [visitor.get(path, headers=headers | IDENTITY) for visitor in visitors]
    for response in responses:
        assert response.status_code == 200
        assert response.headers.get_list("set-cookie") == []
        assert response.headers["cache-control"] == SHARED_PAGE
        assert "private" not in response.headers["cache-control"]
        assert re.fullmatch(r'"[0-9a-f]{20}"', response.headers["etag"]), "a strong ETag"
    assert len({response.content for response in responses}) == 1
    assert len({response.headers["etag"] for response in responses}) == 1
    assert b"learner" not in responses[0].content


@pytest.mark.parametrize("path", SHARED)
def test_gzip_once_with_its_own_etag_and_vary(client: TestClient, path: str) -> None:
    plain = client.get(path, headers=IDENTITY)
    packed = client.get(path, headers=GZIP)
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert int(packed.headers["content-length"]) < len(plain.content) == int(plain.headers["content-length"])
    assert packed.content == plain.content  # decoded
    assert packed.headers["etag"] == plain.headers["etag"][:-1] + '-gz"'  # another coding, another ETag
    for response in (plain, packed):
        assert "accept-encoding" in vary(response)
        assert response.headers["cache-control"] == SHARED_PAGE
    assert client.get(path, headers={"accept-encoding": "gzip;q=0"}).headers.get("content-encoding") is None
    assert client.get(path, headers={"accept-encoding": "br, gzip;q=0.5"}).headers["content-encoding"] == "gzip"


@pytest.mark.parametrize("path", SHARED)
def test_the_etag_gets_304_in_both_encodings(client: TestClient, path: str) -> None:
    for encoding in (IDENTITY, GZIP):
        first = client.get(path, headers=encoding)
        etag = first.headers["etag"]
        for if_none_match in (etag, f"W/{etag}", f'"other", {etag}', "*"):
            again = client.get(path, headers=encoding | {"if-none-match": if_none_match})
            assert again.status_code == 304, if_none_match
            assert again.content == b""
            assert again.headers["etag"] == etag
            assert again.headers["cache-control"] == SHARED_PAGE
            assert vary(again) == vary(first)
        assert client.get(path, headers=encoding | {"if-none-match": '"something-else"'}).status_code == 200
        head = client.head(path, headers=encoding | {"if-none-match": etag})
        assert head.status_code == 304


@pytest.mark.parametrize(
    "path",
    [
        "/en/guides/nvlink",
        "/en/lab",
        "/en/lab/topology",
        "/en/",
        "/ko/exam",
        "/healthz",
        "/sitemap.xml",
        "/robots.txt",
        "/static/css/site.css",
        "/api/v1/links",
        "/api/v1/quizzes",
        "/api/v1/simulate/collective?op=all_reduce&message_bytes=1024",
        "/openapi.json",
        "/en/no-such-page",
        "/api/v1/attempts/no-such-attempt",
    ],
)
@pytest.mark.parametrize("encoding", [IDENTITY, GZIP], ids=["identity", "gzip"])
def test_head_works_wherever_get_does_with_the_same_headers_and_no_body(
    client: TestClient, path: str, encoding: dict[str, str]
) -> None:
    client.get("/en/")  # a learner cookie, so that per-learner pages are the same for both requests
    for headers in (encoding, encoding | HX):
        got = client.get(path, headers=headers)
        head = client.head(path, headers=headers)
        assert head.status_code == got.status_code, path
        assert head.content == b""
        for name in NEGOTIATED:
            if name == "content-length" and got.headers.get("content-encoding") == "gzip" and "etag" not in got.headers:
                continue  # compressed per response (per-learner pages): the length may differ by a byte or two
            assert head.headers.get(name) == got.headers.get(name), (path, name)


def test_static_urls_in_pages_are_content_hashed_and_immutable(client: TestClient) -> None:
    urls: set[str] = set()
    for path in ("/en/", "/ko/guides/nvlink", "/en/lab", "/en/exam", "/docs", "/en/no-such-page"):
        urls |= set(parse(client.get(path).text).asset_urls())
    assert urls, "the pages load stylesheets and scripts"
    for url in sorted(urls):
        match = re.fullmatch(r"/static/([0-9a-f]{12})/(.+)", url)
        assert match is not None, f"{url} is not content-hashed"
        digest, relative = match.groups()
        assert digest == hashlib.sha256((STATIC_DIR / relative).read_bytes()).hexdigest()[:12]
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["cache-control"] == IMMUTABLE
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert response.content == (STATIC_DIR / relative).read_bytes()
        assert response.headers.get_list("set-cookie") == []
        head = client.head(url)
        assert head.status_code == 200
        assert head.content == b""
        assert head.headers["cache-control"] == IMMUTABLE
    stylesheet = next(url for url in urls if url.endswith("css/site.css"))
    assert client.get(stylesheet, headers=GZIP).headers["content-encoding"] == "gzip"
    assert client.get(stylesheet, headers={"if-none-match": client.get(stylesheet).headers["etag"]}).status_code == 304


def test_unhashed_and_outdated_static_urls_are_revalidated_not_kept(client: TestClient) -> None:
    current = hashlib.sha256((STATIC_DIR / "css/site.css").read_bytes()).hexdigest()[:12]
    for url in ("/static/css/site.css", "/static/000000000000/css/site.css"):
        response = client.get(url)
        assert response.status_code == 200
        assert response.headers["cache-control"] == REVALIDATE
        assert response.content == (STATIC_DIR / "css/site.css").read_bytes()
        assert client.get(url, headers={"if-none-match": response.headers["etag"]}).status_code == 304
    assert client.get(f"/static/{current}/css/site.css").headers["cache-control"] == IMMUTABLE
    missing = client.get(f"/static/{current}/css/no-such.css")
    assert missing.status_code == 404
    assert "public" not in missing.headers.get("cache-control", "")
    assert client.post("/static/css/site.css").status_code == 405


@pytest.mark.parametrize("diagram", ["topology", "link-compare", "ring-allreduce", "busbw-sweep", "scaling"])
def test_diagram_fragments_are_cacheable_and_vary_on_hx_request(client: TestClient, diagram: str) -> None:
    url = f"/en/lab/{diagram}"
    fragment, page = client.get(url, headers=HX), client.get(url)
    for response in (fragment, page):
        assert response.status_code == 200
        assert response.headers["cache-control"] == SHARED_PAGE
        assert {"hx-request", "accept-encoding"} <= vary(response)
        assert response.headers.get_list("set-cookie") == []
    assert fragment.headers["etag"] != page.headers["etag"]  # two representations of one URL
    assert client.get(url, headers=HX | {"if-none-match": fragment.headers["etag"]}).status_code == 304
    restore = client.get(url, headers=HX | {"HX-History-Restore-Request": "true"})
    assert restore.headers["etag"] == page.headers["etag"]  # a history restore needs the full page


def test_an_invalid_diagram_state_is_not_kept(client: TestClient) -> None:
    url = "/en/lab/topology?topology=dgx-h100&gpu_a=0&gpu_b=8&drawn=dgx-h100"
    for headers in (HX, {}):
        invalid = client.get(url, headers=headers)
        assert invalid.status_code == 422
        assert invalid.headers["cache-control"] == "no-store"
        assert "hx-request" in vary(invalid)


@pytest.fixture
def quiz(database_url: str, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = quiz_app(database_url, make_settings)
    yield application
    state_of(application).database.dispose()


def test_per_learner_pages_and_answers_are_never_stored(quiz: FastAPI) -> None:
    with TestClient(quiz) as client:
        attempt_id = start_page_attempt(client, "/en/guides/nvlink/quiz")
        api_attempt = client.post("/api/v1/quizzes/nvlink/attempts")
        responses = [
            client.get("/en/"),
            client.get("/ko/exam"),
            client.get("/en/guides/nvlink/quiz"),
            client.get(f"/en/attempts/{attempt_id}"),
            client.get(f"/en/attempts/{attempt_id}", headers=HX),
            client.post("/en/guides/nvlink/quiz", follow_redirects=False),
            api_attempt,
            client.get(f"/api/v1/attempts/{api_attempt.json()['attempt_id']}"),
            client.get("/docs"),
        ]
        client.post(f"/en/attempts/{attempt_id}/finish")
        responses += [client.get(f"/en/attempts/{attempt_id}/result"), client.get(f"/en/attempts/{attempt_id}/review")]
        for response in responses:
            assert "no-store" in response.headers["cache-control"], response.request.url
            assert "public" not in response.headers["cache-control"]
            assert "etag" not in response.headers
        for response in responses[:6]:
            assert "hx-request" in vary(response)
