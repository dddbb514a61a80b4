"""Shared fixtures: settings for a throw-away app, fresh databases on SQLite and PostgreSQL, test clients."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, make_url, text

from app import migrations
from app.config import Environment, Settings
from app.db import Database
from app.main import create_app

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = PROJECT_ROOT.parent / "shared"
TEST_SECRET = "test-secret-" + "x" * 40

DATABASE_BACKENDS = ("sqlite", "postgresql")


def postgres_server_url() -> str:
    url = os.environ.get("TEST_POSTGRES_URL")
    if not url:
        if os.environ.get("POSTGRES_REQUIRED") == "1":
            pytest.fail("POSTGRES_REQUIRED=1 but TEST_POSTGRES_URL is not set")
        pytest.skip("PostgreSQL tests need TEST_POSTGRES_URL (see README); .ci/run sets it")
    return url


class PostgresDatabases:
    """Creates an empty database per test on the server named by TEST_POSTGRES_URL, and drops it afterwards."""

    def __init__(self, server_url: str) -> None:
        self.server_url = make_url(server_url)
        self.admin = create_engine(self.server_url, isolation_level="AUTOCOMMIT")
        self.created: list[str] = []

    def create(self) -> str:
        name = f"test_{secrets.token_hex(6)}"
        with self.admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        self.created.append(name)
        return self.server_url.set(database=name).render_as_string(hide_password=False)

    def drop(self, name: str) -> None:
        with self.admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def drop_all(self) -> None:
        for name in self.created:
            self.drop(name)
        self.created.clear()
        self.admin.dispose()


@pytest.fixture(params=DATABASE_BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite3'}"
        return
    databases = PostgresDatabases(postgres_server_url())
    try:
        yield databases.create()
    finally:
        databases.drop_all()


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    """A fresh database migrated to head, on each backend, disposed of afterwards."""
    database = Database.from_url(database_url)
    migrations.upgrade(database)
    yield database
    database.dispose()


@pytest.fixture
def postgres_database_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database, for behaviour that only PostgreSQL has."""
    databases = PostgresDatabases(postgres_server_url())
    try:
        yield databases.create()
    finally:
        databases.drop_all()


SettingsFactory = Callable[..., Settings]


@pytest.fixture
def make_settings(tmp_path: Path) -> SettingsFactory:
    def factory(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "env": Environment.TEST,
            "var_dir": tmp_path / "var",
            "secret_key": TEST_SECRET,
            "base_url": "http://testserver",
        }
        values.update(overrides)
        return Settings(**values)

    return factory


@pytest.fixture(scope="session")
def shared_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """One app on SQLite and the real content, for the many tests that only read pages."""
    var_dir = tmp_path_factory.mktemp("var")
    return create_app(
        Settings(env=Environment.TEST, var_dir=var_dir, secret_key=TEST_SECRET, base_url="http://testserver")
    )


@pytest.fixture
def client(shared_app: FastAPI) -> Iterator[TestClient]:
    with TestClient(shared_app) as test_client:
        yield test_client
