"""Imports every feature's ORM models so that `Base.metadata` knows all tables (Alembic and tests use it)."""

from app.db import Base
from app.learners import models as learners_models
from app.quiz import models as quiz_models

__all__ = ["Base", "learners_models", "quiz_models"]
