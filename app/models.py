"""Imports every feature's ORM models so that `Base.metadata` knows all tables (Alembic and tests use it)."""

from app import ratelimit
from app.certificates import models as certificates_models
from app.db import Base
from app.learners import models as learners_models
from app.newsletter import models as newsletter_models
from app.quiz import models as quiz_models

__all__ = ["Base", "certificates_models", "learners_models", "newsletter_models", "quiz_models", "ratelimit"]
