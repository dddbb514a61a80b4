"""Alembic is the only source of the schema: upgrade from empty, models == migrations, downgrade to base."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

import app.models  # noqa: F401  (registers every table)
from app import migrations
from app.db import Base, Database
from app.main import create_app
from tests.conftest import SettingsFactory


def test_upgrade_matches_models_and_downgrades_to_base(database_url: str) -> None:
    database = Database.from_url(database_url)
    try:
        migrations.upgrade(database)
        assert migrations.current_revisions(database) == migrations.head_revisions(database)
        with database.engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        assert differences == []
        assert "learners" in inspect(database.engine).get_table_names()

        migrations.downgrade(database, "base")
        tables = set(inspect(database.engine).get_table_names()) - {"alembic_version"}
        assert tables == set()
        assert migrations.current_revisions(database) == ()
    finally:
        database.dispose()


def test_every_revision_downgrades_and_upgrades_again(database_url: str) -> None:
    database = Database.from_url(database_url)
    try:
        migrations.upgrade(database)
        heads = migrations.head_revisions(database)
        migrations.downgrade(database, "-1")
        migrations.upgrade(database)
        assert migrations.current_revisions(database) == heads
    finally:
        database.dispose()


def test_sqlite_is_upgraded_at_start_up(make_settings: SettingsFactory) -> None:
    settings = make_settings()
    app = create_app(settings)
    database = app.state.interconnects.database
    assert migrations.current_revisions(database) == migrations.head_revisions(database)


def test_postgresql_refuses_to_start_on_an_old_schema(
    postgres_database_url: str, make_settings: SettingsFactory
) -> None:
    database_url = postgres_database_url
    with pytest.raises(migrations.SchemaOutOfDateError, match="interconnects db upgrade"):
        create_app(make_settings(database_url=database_url))
    database = Database.from_url(database_url)
    try:
        migrations.upgrade(database)
    finally:
        database.dispose()
    app = create_app(make_settings(database_url=database_url))
    app.state.interconnects.database.dispose()
