"""Imports every feature's ORM models so that `Base.metadata` knows all tables (Alembic and tests use it)."""

from app.db import Base
from app.learners import models as learners_models

__all__ = ["Base", "learners_models"]
