"""/metrics: in production only the bearer of METRICS_TOKEN reads it (nobody, without one); in development anyone,
unless a token is set."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from fastapi.testclient import TestClient

from app.config import Environment, Settings
from app.log import configure_logging
from app.main import create_app
from tests.conftest import SettingsFactory
from tests.web.quizzes import state_of

TOKEN = "m" * 43
PRODUCTION_URL = "https://course.example"


@pytest.fixture
def production(make_settings: SettingsFactory, tmp_path: Path) -> Iterator[SettingsFactory]:
    key_file = tmp_path / "certificate-keys.pem"
    key_file.write_bytes(Ed25519PrivateKey.generate().private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))

    def factory(**overrides: object) -> Settings:
        values: dict[str, object] = {
            "env": Environment.PRODUCTION,
            "base_url": PRODUCTION_URL,
            "secret_key": "p" * 40,
            "certificate_key_file": key_file,
        }
        return make_settings(**(values | overrides))

    yield factory
    configure_logging(make_settings())  # production logs JSON; the other tests read plain lines


@contextmanager
def _client(settings: Settings, base_url: str) -> Iterator[TestClient]:
    app = create_app(settings)
    try:
        with TestClient(app, base_url=base_url) as client:
            yield client
    finally:
        state_of(app).database.dispose()


def test_production_answers_only_the_bearer_of_the_token(production: SettingsFactory) -> None:
    with _client(production(metrics_token=TOKEN), PRODUCTION_URL) as client:
        client.get("/en/lab")
        for headers in (
            {},
            {"Authorization": f"Bearer {TOKEN}x"},
            {"Authorization": f"Bearer {TOKEN[:-1]}"},
            {"Authorization": f"Basic {TOKEN}"},
            {"Authorization": "Bearer"},
        ):
            refused = client.get("/metrics", headers=headers | {"Accept-Language": "ko"})
            assert refused.status_code == 401, headers
            assert refused.headers["www-authenticate"] == 'Bearer realm="metrics"'
            assert refused.headers["cache-control"] == "no-store"
            assert refused.text == "메트릭을 읽으려면 METRICS_TOKEN으로 설정한 bearer 토큰이 필요합니다."
            assert "http_requests_total" not in refused.text
        english = client.get("/metrics", headers={"Accept-Language": "en"})
        assert english.text == "The metrics need the bearer token that METRICS_TOKEN sets."
        for scheme in ("Bearer", "bearer"):
            allowed = client.get("/metrics", headers={"Authorization": f"{scheme} {TOKEN}"})
            assert allowed.status_code == 200
            assert 'http_requests_total{method="GET",route="/{lang}/lab",status="200"}' in allowed.text


def test_production_without_a_token_publishes_no_metrics(production: SettingsFactory) -> None:
    with _client(production(), PRODUCTION_URL) as client:
        for headers in ({}, {"Authorization": "Bearer anything"}):
            refused = client.get("/metrics", headers=headers | {"Accept-Language": "ko"}, follow_redirects=False)
            assert refused.status_code == 404
            assert refused.text == "이 주소에는 아무것도 없습니다."
        assert client.get("/healthz").status_code == 200


def test_development_is_open_unless_a_token_is_set(make_settings: SettingsFactory) -> None:
    with _client(make_settings(env=Environment.DEVELOPMENT), "http://testserver") as client:
        assert client.get("/metrics").status_code == 200
    with _client(make_settings(env=Environment.DEVELOPMENT, metrics_token=TOKEN), "http://testserver") as client:
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
