"""Alembic environment: the engine comes from the application (app.migrations) or from Settings."""

from __future__ import annotations

from sqlalchemy import Engine

import app.models  # noqa: F401  (registers every table on Base.metadata)
from alembic import context
from app.config import get_settings
from app.db import Base, make_engine

target_metadata = Base.metadata


def run_migrations_online() -> None:
    engine = context.config.attributes.get("engine")
    if not isinstance(engine, Engine):
        engine = make_engine(get_settings().sqlalchemy_url)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


if context.is_offline_mode():
    raise SystemExit("Offline (--sql) migrations are not supported; run against a database.")
run_migrations_online()
