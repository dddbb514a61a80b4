"""Schema management through Alembic, the only source of the schema.

SQLite (the embedded default) is upgraded to head at start-up. PostgreSQL is migrated explicitly with
`interconnects db upgrade`, and the app refuses to start on a schema that is not at head: several app processes
share one database, and none of them should race to migrate it.
"""

from __future__ import annotations

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from alembic import command
from app.config import PROJECT_ROOT
from app.db import Database


class SchemaOutOfDateError(RuntimeError):
    pass


def alembic_config(database: Database) -> Config:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "alembic"))
    config.attributes["engine"] = database.engine
    return config


def upgrade(database: Database, revision: str = "head") -> None:
    command.upgrade(alembic_config(database), revision)


def downgrade(database: Database, revision: str) -> None:
    command.downgrade(alembic_config(database), revision)


def current_revisions(database: Database) -> tuple[str, ...]:
    with database.engine.connect() as connection:
        return tuple(MigrationContext.configure(connection).get_current_heads())


def head_revisions(database: Database) -> tuple[str, ...]:
    return tuple(ScriptDirectory.from_config(alembic_config(database)).get_heads())


def ensure_schema(database: Database, auto_upgrade: bool) -> None:
    if auto_upgrade:
        upgrade(database)
        return
    current, heads = set(current_revisions(database)), set(head_revisions(database))
    if current != heads:
        shown = ", ".join(sorted(current)) or "empty"
        raise SchemaOutOfDateError(
            f"The database schema is at {shown} but this code needs {', '.join(sorted(heads))}. "
            "Run `interconnects db upgrade` first."
        )
