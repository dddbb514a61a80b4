"""Everything a request needs that is built once per process: settings, database, rendered course, templates."""

from __future__ import annotations

import gettext
from dataclasses import dataclass, field

from app.config import Settings
from app.content import Course
from app.db import Database
from app.quiz.bank import QuizCatalog
from app.quiz.service import QuizPolicy
from app.web.metrics import RequestMetrics
from app.web.templating import Templates


@dataclass(frozen=True, slots=True)
class AppState:
    settings: Settings
    secret_key: str
    database: Database
    course: Course
    translations: dict[str, gettext.GNUTranslations]
    templates: Templates
    metrics: RequestMetrics
    quizzes: QuizCatalog
    quiz_policy: QuizPolicy = field(default_factory=QuizPolicy)
