"""Fixtures of the web tests."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from app.content import Course, load_course
from app.quiz.bank import QuizCatalog, load_quizzes


@pytest.fixture(scope="session", autouse=True)
def content_parsed_once() -> Iterator[None]:
    """Every app these tests build reads the same content/, which is immutable once loaded: it is parsed and
    validated once per session instead of once per app (most of the cost of building one, seconds on a busy
    machine). What the app does with it is unchanged; tests/unit/content tests the loading itself."""
    catalogs: dict[tuple[Path, int], QuizCatalog] = {}

    def load_quizzes_once(content_dir: Path, course: Course) -> QuizCatalog:
        key = (content_dir, id(course))  # the course is the one kept below: its id stays the same
        if key not in catalogs:
            catalogs[key] = load_quizzes(content_dir, course)
        return catalogs[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("app.web.factory.load_course", cache(load_course))
        patch.setattr("app.web.factory.load_quizzes", load_quizzes_once)
        yield
