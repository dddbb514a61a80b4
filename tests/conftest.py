"""Shared fixtures: settings for a throw-away app, databases on SQLite and PostgreSQL, test clients.

Databases are migrated once per test session into a template, and each test gets a copy: a file copy on
SQLite, `CREATE DATABASE ... TEMPLATE` on PostgreSQL (milliseconds, where running the migrations took a
quarter of a second per test). PostgreSQL is the server named by TEST_POSTGRES_URL, or else a throw-away
cluster started here with the machine's `initdb` and `pg_ctl`, so that `./dev test` on a fresh machine with
PostgreSQL installed runs the PostgreSQL tests too.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.exc import DBAPIError

from app import migrations
from app.config import Environment, Settings
from app.db import Database
from app.main import create_app
from app.quiz.service import QuizPolicy
from app.ratelimit import Limit

PROJECT_ROOT = Path(__file__).resolve().parent.parent
FIXTURE_COURSE = PROJECT_ROOT / "tests" / "fixtures" / "course"
TEST_SECRET = "test-secret-" + "x" * 40

DATABASE_BACKENDS = ("sqlite", "postgresql")
UNLIMITED = Limit(1_000_000, 1)
GENEROUS_POLICY = QuizPolicy(UNLIMITED, UNLIMITED, UNLIMITED, UNLIMITED, UNLIMITED)


# --- PostgreSQL: the configured server, or a throw-away cluster --------------------------------------------


def _postgres_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)
    return str(candidates[0]) if candidates else None


@dataclass
class _Cluster:
    directory: Path
    url: str
    as_user: list[str]
    pg_ctl: str

    def stop(self) -> None:
        subprocess.run(
            [*self.as_user, self.pg_ctl, "-D", str(self.directory / "data"), "-m", "immediate", "stop"],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(self.directory, ignore_errors=True)


def _start_cluster() -> _Cluster | None:
    initdb, pg_ctl = _postgres_bin("initdb"), _postgres_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        return None
    as_user: list[str] = []
    directory = Path(tempfile.mkdtemp(prefix="interconnects-pg-"))
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: run it as the postgres user, if there is one
        if shutil.which("runuser") is None or subprocess.run(["id", "postgres"], capture_output=True).returncode:
            return None
        shutil.chown(directory, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, socket_dir = directory / "data", directory
    port = 40000 + secrets.randbelow(20000)
    subprocess.run(
        [*as_user, initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
        check=True,
        capture_output=True,
    )
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {socket_dir} -c fsync=off -c full_page_writes=off"
    subprocess.run(
        [*as_user, pg_ctl, "-D", str(data), "-o", options, "-l", str(directory / "log"), "-w", "start"],
        check=True,
        capture_output=True,
    )
    return _Cluster(directory, f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", as_user, pg_ctl)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str | None]:
    """The URL of a server where this role may CREATE DATABASE, or None when there is none."""
    url = os.environ.get("TEST_POSTGRES_URL")
    if url:
        yield url
        return
    cluster = _start_cluster()
    if cluster is None:
        yield None
        return
    try:
        yield cluster.url
    finally:
        cluster.stop()


def require_postgres(server: str | None) -> str:
    if server is None:
        if os.environ.get("POSTGRES_REQUIRED") == "1":
            pytest.fail("POSTGRES_REQUIRED=1 but there is no PostgreSQL (set TEST_POSTGRES_URL or install it)")
        pytest.skip("PostgreSQL tests need TEST_POSTGRES_URL or PostgreSQL's initdb and pg_ctl on this machine")
    return server


def require_deploy(missing: list[str]) -> None:
    """The deployment suite needs nginx, PostgreSQL and openssl on this machine; CI sets DEPLOY_REQUIRED=1 so that
    their absence fails instead of skipping."""
    if not missing:
        return
    reason = f"the deployment tests need {', '.join(missing)} (apt-get install nginx postgresql openssl)"
    if os.environ.get("DEPLOY_REQUIRED") == "1":
        pytest.fail("DEPLOY_REQUIRED=1 but " + reason)
    pytest.skip(reason)


class PostgresDatabases:
    """Creates databases on a server (empty, or copies of a template) and drops them all afterwards."""

    def __init__(self, server_url: str) -> None:
        self.server_url = make_url(server_url)
        self.admin = create_engine(self.server_url, isolation_level="AUTOCOMMIT")
        self.created: list[str] = []

    def create(self, template: str | None = None) -> str:
        name = f"test_{secrets.token_hex(6)}"
        clause = f' TEMPLATE "{template}"' if template else ""
        with self.admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"{clause}'))
        self.created.append(name)
        return self.url_of(name)

    def url_of(self, name: str) -> str:
        return self.server_url.set(database=name).render_as_string(hide_password=False)

    def drop(self, name: str) -> None:
        """Drop ``name`` and cut every session in it (the app's pooled connections too).

        For a role that is not a superuser, PostgreSQL 15 refuses ``WITH (FORCE)`` while an autovacuum worker is
        in the database (the worker has no role to be a member of), which a migration's churn of the catalogue
        often starts. A plain DROP DATABASE stops autovacuum itself, so then end this role's sessions and use it,
        again if a session came back in between."""
        with self.admin.connect() as connection:
            try:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                return
            except DBAPIError as error:
                if not isinstance(error.orig, psycopg.errors.InsufficientPrivilege):
                    raise
            for attempt in range(50):
                connection.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :name AND usename = current_user AND pid <> pg_backend_pid()"
                    ),
                    {"name": name},
                )
                try:
                    connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
                    return
                except DBAPIError as error:
                    if not isinstance(error.orig, psycopg.errors.ObjectInUse) or attempt == 49:
                        raise
                time.sleep(0.1)

    def drop_all(self) -> None:
        try:
            for name in self.created:
                self.drop(name)
            self.created.clear()
        finally:
            self.admin.dispose()


@dataclass(frozen=True)
class _Templates:
    sqlite_file: Path
    postgres: PostgresDatabases | None
    postgres_template: str | None


@pytest.fixture(scope="session")
def migrated_templates(tmp_path_factory: pytest.TempPathFactory, postgres_server: str | None) -> Iterator[_Templates]:
    sqlite_file = tmp_path_factory.mktemp("template") / "template.sqlite3"
    database = Database.from_url(f"sqlite:///{sqlite_file}")
    migrations.upgrade(database)
    database.dispose()
    if postgres_server is None:
        yield _Templates(sqlite_file, None, None)
        return
    postgres = PostgresDatabases(postgres_server)
    template_url = postgres.create()
    template = Database.from_url(template_url)
    migrations.upgrade(template)
    template.dispose()  # a template must have no open connections while it is copied
    try:
        yield _Templates(sqlite_file, postgres, make_url(template_url).database)
    finally:
        if os.environ.get("TEST_POSTGRES_URL"):
            postgres.drop_all()  # a server of the developer's: leave it as it was
        else:
            postgres.admin.dispose()  # the throw-away cluster goes, databases and all


@pytest.fixture(params=DATABASE_BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path, migrated_templates: _Templates) -> str:
    """A fresh database migrated to head: a copy of the SQLite template file, or of the PostgreSQL template."""
    if request.param == "sqlite":
        path = tmp_path / "test.sqlite3"
        shutil.copyfile(migrated_templates.sqlite_file, path)
        return f"sqlite:///{path}"
    if migrated_templates.postgres is None:
        require_postgres(None)
    assert migrated_templates.postgres is not None
    return migrated_templates.postgres.create(template=migrated_templates.postgres_template)


@pytest.fixture(params=DATABASE_BACKENDS)
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path, postgres_server: str | None) -> Iterator[str]:
    """A fresh, empty database (for the migration tests themselves)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    databases = PostgresDatabases(require_postgres(postgres_server))
    try:
        yield databases.create()
    finally:
        databases.drop_all()


@pytest.fixture
def postgres_database_url(migrated_templates: _Templates) -> str:
    """A fresh migrated PostgreSQL database, for behaviour that only PostgreSQL has."""
    if migrated_templates.postgres is None:
        require_postgres(None)
    assert migrated_templates.postgres is not None
    return migrated_templates.postgres.create(template=migrated_templates.postgres_template)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    """A fresh database at head, on each backend, disposed of afterwards."""
    database = Database.from_url(database_url)
    yield database
    database.dispose()


# --- apps and clients ----------------------------------------------------------------------------------------

SettingsFactory = Callable[..., Settings]


@pytest.fixture
def fixture_course(tmp_path: Path) -> Path:
    """A fresh copy of the small course in tests/fixtures/course, for a test to break one thing in (copying and
    loading the real course took a few seconds a test)."""
    copy = tmp_path / "content"
    shutil.copytree(FIXTURE_COURSE, copy)
    return copy


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
    """One app on SQLite and the real content, for the many tests that only read pages.

    The tests that share it come from one client address; so that no order of tests can trip the per-address
    rate limits, the ones that exercise limits build their own app with their own policy."""
    var_dir = tmp_path_factory.mktemp("var")
    app = create_app(
        Settings(env=Environment.TEST, var_dir=var_dir, secret_key=TEST_SECRET, base_url="http://testserver")
    )
    app.state.interconnects.quiz.policy = GENEROUS_POLICY
    return app


@pytest.fixture
def client(shared_app: FastAPI) -> Iterator[TestClient]:
    with TestClient(shared_app) as test_client:
        yield test_client


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests last: Playwright's sync API keeps an event loop running in the main thread until its
    session ends, and the service tests after it run event loops of their own."""
    items.sort(key=lambda item: "/tests/e2e/" in str(item.path))
