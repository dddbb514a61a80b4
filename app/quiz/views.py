"""What the service hands to the web layer: an attempt as the learner may see it, built from stored rows and
the bank. Correctness, feedback and explanations exist only on `AnswerView`, which exists only for a locked
answer (and, on a closed attempt, for the review)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, Protocol

from app.quiz.bank import Option, Question, Quiz, Text, format_number, render_text
from app.quiz.grading import Grade, expected_in_unit
from app.quiz.models import OPEN_STATES, aware
from app.quiz.store import StoredAnswer
from app.simulator.models import ParameterValue


@dataclass(frozen=True, slots=True)
class ShownOption:
    token: str
    index: int  # in the bank question
    option: Option

    def text(self, language: str) -> str:
        return self.option.text.get(language)


@dataclass(frozen=True, slots=True)
class DrawnView:
    """A question as drawn for one attempt: no correctness in here."""

    number: int
    question: Question
    parameters: Mapping[str, ParameterValue]
    options: tuple[ShownOption, ...]

    @property
    def id(self) -> str:
        return self.question.id

    @property
    def type(self) -> str:
        return self.question.type

    @property
    def unit(self) -> str | None:
        return self.question.unit

    def prompt(self, language: str) -> str:
        return render_text(self.question.prompt.get(language), self.parameters, language)

    def token_to_index(self) -> dict[str, int]:
        return {shown.token: shown.index for shown in self.options}


@dataclass(frozen=True, slots=True)
class Feedback:
    """One piece of feedback: an option's own text (with its misconception), or a numeric diagnosis code."""

    text: Text | None = None
    misconception: str | None = None
    diagnosis: str | None = None
    ratio: float | None = None


@dataclass(frozen=True, slots=True)
class AnswerView:
    question_id: str
    drawn: DrawnView
    grade: Grade
    chosen: tuple[int, ...]  # bank indexes (choice questions)
    text: str | None  # the quantity as typed (numeric)
    answered: bool  # False for an unanswered question shown in the review

    @property
    def correct(self) -> bool:
        return self.grade.correct

    @property
    def chosen_tokens(self) -> tuple[str, ...]:
        return tuple(shown.token for shown in self.drawn.options if shown.index in self.chosen)

    @property
    def correct_tokens(self) -> tuple[str, ...] | None:
        if self.drawn.type == "numeric":
            return None
        return tuple(shown.token for shown in self.drawn.options if shown.option.correct)

    @property
    def correct_value(self) -> float | None:
        if self.drawn.type != "numeric":
            return None
        return expected_in_unit(self.drawn.question, self.drawn.parameters)

    def explanation(self, language: str) -> str:
        answer = ""
        if self.correct_value is not None:
            answer = f"{format_number(self.correct_value, language)} {self.drawn.unit}"
        return render_text(
            self.drawn.question.explanation.get(language), self.drawn.parameters, language, answer=answer
        )

    @property
    def feedback(self) -> tuple[Feedback, ...]:
        if self.drawn.type == "numeric":
            if self.grade.correct or not self.answered:
                return ()
            return (Feedback(diagnosis=self.grade.diagnosis, ratio=self.grade.ratio),)
        items = []
        for shown in self.drawn.options:
            if shown.index in self.chosen and shown.option.feedback is not None:
                items.append(Feedback(text=shown.option.feedback, misconception=shown.option.misconception))
            elif shown.index in self.chosen and shown.option.misconception is not None:
                items.append(Feedback(misconception=shown.option.misconception))
        return tuple(items)


@dataclass(frozen=True, slots=True)
class AttemptView:
    id: str
    quiz: Quiz
    state: str
    started_at: datetime
    deadline_at: datetime | None
    finished_at: datetime | None
    questions: tuple[DrawnView, ...]
    answers: Mapping[str, AnswerView]
    correct_count: int | None
    score_percent: int | None
    passed: bool | None

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES

    @property
    def answered_count(self) -> int:
        return len(self.answers)

    def question(self, question_id: str) -> DrawnView | None:
        for drawn in self.questions:
            if drawn.id == question_id:
                return drawn
        return None

    def review(self) -> tuple[AnswerView, ...]:
        """Every question with its answer; unanswered ones as wrong with nothing chosen. Closed attempts only."""
        assert not self.is_open
        return tuple(
            self.answers.get(drawn.id) or AnswerView(drawn.id, drawn, Grade(False), (), None, answered=False)
            for drawn in self.questions
        )


def drawn_questions(stored: list[dict[str, Any]], quiz: Quiz) -> tuple[DrawnView, ...]:
    """The questions as drawn, from what quiz_attempts.questions holds."""
    views: list[DrawnView] = []
    for item in stored:
        question = quiz.question(str(item["id"]))
        if question is None:  # the bank dropped the question since: it cannot be shown or graded
            continue
        options = tuple(
            ShownOption(token=str(token), index=int(index), option=question.options[int(index)])
            for index, token in item["options"]
        )
        views.append(DrawnView(len(views) + 1, question, dict(item["params"]), options))
    return tuple(views)


@lru_cache(maxsize=1024)
def drawn_questions_from_json(stored_json: str, quiz: Quiz) -> tuple[DrawnView, ...]:
    """drawn_questions for the stored JSON text, remembered: a draw never changes once stored, and every answer
    and page of an attempt needs it. Keyed by the text itself, so there is nothing to invalidate; the quiz is
    compared by identity (a reloaded bank is a new key)."""
    return drawn_questions(json.loads(stored_json), quiz)


class AttemptRecord(Protocol):
    """The quiz_attempts columns an AttemptView is built from: a store.StoredAttempt, or the ORM row just added."""

    @property
    def id(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def started_at(self) -> datetime: ...
    @property
    def deadline_at(self) -> datetime | None: ...
    @property
    def finished_at(self) -> datetime | None: ...
    @property
    def correct_count(self) -> int | None: ...
    @property
    def score_percent(self) -> int | None: ...
    @property
    def passed(self) -> bool | None: ...


def answer_view(drawn: DrawnView, row: StoredAnswer) -> AnswerView:
    grade = Grade(correct=row.correct, diagnosis=row.diagnosis, ratio=row.ratio)
    return AnswerView(row.question_id, drawn, grade, tuple(row.chosen or ()), row.text, answered=True)


def attempt_view(
    attempt: AttemptRecord, quiz: Quiz, questions: tuple[DrawnView, ...], answers: list[StoredAnswer]
) -> AttemptView:
    by_id = {drawn.id: drawn for drawn in questions}
    answer_views = {
        row.question_id: answer_view(by_id[row.question_id], row) for row in answers if row.question_id in by_id
    }
    return AttemptView(
        id=attempt.id,
        quiz=quiz,
        state=attempt.state,
        started_at=aware(attempt.started_at),
        deadline_at=aware(attempt.deadline_at) if attempt.deadline_at else None,
        finished_at=aware(attempt.finished_at) if attempt.finished_at else None,
        questions=questions,
        answers=answer_views,
        correct_count=attempt.correct_count,
        score_percent=attempt.score_percent,
        passed=attempt.passed,
    )


def stored_questions(drawn: list[tuple[str, dict[str, ParameterValue], list[tuple[int, str]]]]) -> list[Any]:
    """The JSON stored in quiz_attempts.questions."""
    return [
        {"id": question_id, "params": params, "options": [[index, token] for index, token in options]}
        for question_id, params, options in drawn
    ]
