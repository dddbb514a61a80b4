from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import make_url

from app import migrations
from app.config import Environment
from app.db import Database
from app.log import configure_logging
from app.main import create_app
from tests.conftest import PostgresDatabases, SettingsFactory, postgres_server_url


def test_healthz_checks_the_database(database_url: str, make_settings: SettingsFactory) -> None:
    database = Database.from_url(database_url)
    migrations.upgrade(database)
    database.dispose()
    app = create_app(make_settings(database_url=database_url))
    with TestClient(app) as client:
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


def test_healthz_is_503_when_sqlite_file_is_unreachable(make_settings: SettingsFactory, tmp_path: Path) -> None:
    db_path = tmp_path / "gone.sqlite3"
    app = create_app(make_settings(database_url=f"sqlite:///{db_path}"))
    app.state.interconnects.database.dispose()
    db_path.unlink()
    for suffix in ("-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    db_path.mkdir()  # a directory where the database file was: SQLite cannot open it
    with TestClient(app) as client:
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "unreachable"}
    shutil.rmtree(db_path)


def test_healthz_is_503_when_postgresql_database_is_gone(make_settings: SettingsFactory) -> None:
    databases = PostgresDatabases(postgres_server_url())
    url = databases.create()
    try:
        database = Database.from_url(url)
        migrations.upgrade(database)
        database.dispose()
        app = create_app(make_settings(database_url=url))
        app.state.interconnects.database.dispose()
        databases.drop(make_url(url).database or "")
        with TestClient(app) as client:
            response = client.get("/healthz")
        assert response.status_code == 503
        app.state.interconnects.database.dispose()
    finally:
        databases.drop_all()


def test_metrics_count_requests_by_route_template(client: TestClient) -> None:
    client.get("/en/guides/nvlink")
    client.get("/ko/guides/nvlink")
    client.get("/en/no-such-page")
    text = client.get("/metrics").text
    assert 'http_requests_total{method="GET",route="/{lang}/guides/{slug}",status="200"}' in text
    assert "/en/guides/nvlink" not in text, "raw paths must not become label values"
    assert 'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/{lang}/guides/{slug}"}' in text


def test_production_logs_are_json(make_settings: SettingsFactory, capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging(make_settings(env=Environment.PRODUCTION, secret_key="p" * 40))
    logging.getLogger("interconnects.test").warning("hello %s", "world")
    line = capsys.readouterr().err.strip().splitlines()[-1]
    record = json.loads(line)
    assert record["message"] == "hello world"
    assert record["level"] == "WARNING"
    configure_logging(make_settings())


def test_production_refuses_to_start_without_a_secret(make_settings: SettingsFactory) -> None:
    from app.config import ConfigurationError

    with pytest.raises(ConfigurationError):
        create_app(make_settings(env=Environment.PRODUCTION, secret_key=None))
