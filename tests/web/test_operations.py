"""Operations: the health check, metrics by route template, JSON logs in production, fail-fast configuration.
(The health check with the database gone is in test_database_down.py.)"""

from __future__ import annotations

import json
import logging

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.config import ConfigurationError, Environment
from app.log import configure_logging
from app.main import create_app
from tests.conftest import SettingsFactory
from tests.web.quizzes import state_of


def test_healthz_checks_the_database(database_url: str, make_settings: SettingsFactory) -> None:
    app = create_app(make_settings(database_url=database_url))
    try:
        with TestClient(app) as client:
            response = client.get("/healthz")
            head = client.head("/healthz")
    finally:
        state_of(app).database.dispose()
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}
    assert response.headers["cache-control"] == "no-store"
    assert head.status_code == 200
    assert head.content == b""


def test_metrics_count_requests_by_route_template(shared_app: FastAPI, client: TestClient) -> None:
    client.get("/en/guides/nvlink")
    client.get("/ko/guides/nvlink")
    client.get("/ko/guides/nvlink")  # from the page cache: still counted, under its route
    client.get("/en/no-such-page")
    text = client.get("/metrics").text
    counted = 'http_requests_total{method="GET",route="/{lang}/guides/{slug}",status="200"}'
    assert counted in text
    assert float(text.split(counted)[1].split()[0]) >= 3
    assert "/en/guides/nvlink" not in text, "raw paths must not become label values"
    assert "/en/no-such-page" not in text
    assert 'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/{lang}/guides/{slug}"}' in text
    assert state_of(shared_app).metrics.registry is not None


def test_production_logs_are_json(make_settings: SettingsFactory, capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging(make_settings(env=Environment.PRODUCTION, secret_key="p" * 40))
    try:
        logging.getLogger("interconnects.test").warning("hello %s", "world")
        line = capsys.readouterr().err.strip().splitlines()[-1]
    finally:
        configure_logging(make_settings())
    record = json.loads(line)
    assert record["message"] == "hello world"
    assert record["level"] == "WARNING"


def test_production_refuses_to_start_without_a_secret(make_settings: SettingsFactory) -> None:
    with pytest.raises(ConfigurationError):
        create_app(make_settings(env=Environment.PRODUCTION, secret_key=None))
    configure_logging(make_settings())
