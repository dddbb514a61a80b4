"""Alembic is the only source of the schema: upgrade from empty, models == migrations, every step down and up
again, and down to base, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

import app.models  # noqa: F401  (registers every table)
from app import migrations
from app.db import Base, Database
from app.main import create_app
from tests.conftest import PostgresDatabases, SettingsFactory, require_postgres


def tables(database: Database) -> set[str]:
    return set(inspect(database.engine).get_table_names()) - {"alembic_version"}


def rate_limit_tables() -> set[str]:
    return {
        str(mapper.class_.__tablename__)
        for mapper in Base.registry.mappers
        if mapper.class_.__module__ == "app.ratelimit"
    }


def differences(database: Database) -> list[object]:
    with database.engine.connect() as connection:
        return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))


def test_upgrade_from_empty_matches_the_models_and_downgrades_to_base(empty_database_url: str) -> None:
    database = Database.from_url(empty_database_url)
    try:
        assert tables(database) == set()
        migrations.upgrade(database)
        assert migrations.current_revisions(database) == migrations.head_revisions(database)
        assert differences(database) == []
        assert tables(database) == set(Base.metadata.tables)
        assert rate_limit_tables()  # the sliding windows' table, new in revision 0003
        assert rate_limit_tables() <= tables(database)
        assert {"learners", "quiz_attempts", "quiz_answers"} <= tables(database)

        migrations.downgrade(database, "base")
        assert tables(database) == set()
        assert migrations.current_revisions(database) == ()
    finally:
        database.dispose()


def test_every_revision_downgrades_and_upgrades_again(empty_database_url: str) -> None:
    database = Database.from_url(empty_database_url)
    try:
        script = ScriptDirectory.from_config(migrations.alembic_config(database))
        revisions = [revision.revision for revision in reversed(list(script.walk_revisions()))]
        assert len(revisions) >= 3
        for revision in revisions:  # up one step at a time; each step down and up again
            migrations.upgrade(database, revision)
            assert migrations.current_revisions(database) == (revision,)
            schema = {table: inspect(database.engine).get_columns(table) for table in tables(database)}
            migrations.downgrade(database, "-1")
            migrations.upgrade(database, revision)
            again = {table: inspect(database.engine).get_columns(table) for table in tables(database)}
            assert {table: [column["name"] for column in columns] for table, columns in again.items()} == {
                table: [column["name"] for column in columns] for table, columns in schema.items()
            }
        assert migrations.current_revisions(database) == migrations.head_revisions(database)
        assert differences(database) == []
    finally:
        database.dispose()


def test_the_test_databases_are_at_head(database: Database) -> None:
    """The template every test database is copied from was migrated like any database."""
    assert migrations.current_revisions(database) == migrations.head_revisions(database)
    assert differences(database) == []


def test_sqlite_is_upgraded_at_start_up(make_settings: SettingsFactory) -> None:
    app = create_app(make_settings())
    database = app.state.interconnects.database
    try:
        assert migrations.current_revisions(database) == migrations.head_revisions(database)
    finally:
        database.dispose()


@pytest.fixture
def empty_postgres_url(postgres_server: str | None) -> Iterator[str]:
    databases = PostgresDatabases(require_postgres(postgres_server))
    try:
        yield databases.create()
    finally:
        databases.drop_all()


def test_postgresql_refuses_to_start_on_an_empty_or_old_schema(
    empty_postgres_url: str, make_settings: SettingsFactory
) -> None:
    with pytest.raises(migrations.SchemaOutOfDateError, match="interconnects db upgrade"):
        create_app(make_settings(database_url=empty_postgres_url))
    database = Database.from_url(empty_postgres_url)
    try:
        script = ScriptDirectory.from_config(migrations.alembic_config(database))
        (head,) = migrations.head_revisions(database)
        previous = script.get_revision(head).down_revision
        assert isinstance(previous, str)
        migrations.upgrade(database, previous)
        # What create_app checks on PostgreSQL (it loads the content first, which is the slow part).
        with pytest.raises(migrations.SchemaOutOfDateError, match=f"schema is at {previous} but this code needs"):
            migrations.ensure_schema(database, auto_upgrade=False)
        migrations.upgrade(database)
        migrations.ensure_schema(database, auto_upgrade=False)
    finally:
        database.dispose()
