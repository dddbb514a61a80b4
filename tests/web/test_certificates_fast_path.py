"""The page cache's fast path for /c/{ID}: registered by name when the app is built, verifying again on every
request, logging its failures (the app then answers), and counted and timed in the metrics like any answer."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web.certificate_pages import FAST_PATH
from app.web.middleware.page_cache import PageCacheMiddleware
from tests.conftest import SettingsFactory
from tests.web.quizzes import certificate_app, state_of

ROUTE = "/c/{certificate_id}"


@pytest.fixture
def app(tmp_path: Path, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = certificate_app(tmp_path, make_settings)
    yield application
    state_of(application).database.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def issue(app: FastAPI, name: str) -> str:
    return asyncio.run(state_of(app).certificates.issue(name, None, "en")).id


def sample(app: FastAPI, name: str, labels: dict[str, str]) -> float:
    return state_of(app).metrics.registry.get_sample_value(name, labels) or 0.0


def test_the_fast_path_is_the_one_registered_when_the_app_was_built(app: FastAPI, client: TestClient) -> None:
    layer: Any = app.middleware_stack
    while not isinstance(layer, PageCacheMiddleware):
        layer = layer.app
    assert layer.rechecks == {FAST_PATH: state_of(app).certificate_pages.recheck}


def test_a_failing_fast_path_is_logged_and_the_app_answers(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    certificate_id = issue(app, "Dorothy Vaughan")
    path = f"/c/{certificate_id}"
    first = client.get(path)
    service = state_of(app).certificates
    recheck = service.recheck
    calls: list[str] = []

    async def failing(raw_id: str) -> Any:
        calls.append(raw_id)
        if len(calls) == 1:
            raise RuntimeError("the database went away")
        return await recheck(raw_id)

    monkeypatch.setattr(service, "recheck", failing)
    with caplog.at_level(logging.ERROR, logger="app.web.middleware.page_cache"):
        second = client.get(path)
    assert (second.status_code, second.content) == (200, first.content)  # answered by the app in full
    failures = [record for record in caplog.records if record.name == "app.web.middleware.page_cache"]
    assert len(failures) == 1
    assert failures[0].exc_info is not None
    assert "the database went away" in str(failures[0].exc_info[1])
    assert ROUTE in failures[0].getMessage()
    assert client.get(path).content == first.content
    assert calls == [certificate_id, certificate_id]


def test_answers_from_memory_are_counted_and_timed_under_their_method(app: FastAPI, client: TestClient) -> None:
    certificate_id = issue(app, "Mary Jackson")
    path = f"/c/{certificate_id}"
    assert client.get(path).status_code == 200  # through the app: remembered
    for _ in range(3):
        assert client.get(path).status_code == 200  # from memory
    assert client.head(path).status_code == 200
    get, head = {"route": ROUTE, "method": "GET"}, {"route": ROUTE, "method": "HEAD"}
    assert sample(app, "http_requests_total", get | {"status": "200"}) == 4
    assert sample(app, "http_requests_total", head | {"status": "200"}) == 1
    assert sample(app, "http_request_duration_seconds_count", get) == 4
    assert sample(app, "http_request_duration_seconds_count", head) == 1
