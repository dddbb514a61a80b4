"""The quiz's messages and feedback in the learner's language (the quiz package speaks codes and English)."""

from __future__ import annotations

import gettext
from dataclasses import dataclass
from typing import Any

from babel.numbers import format_decimal

from app.quiz import messages
from app.quiz.bank import format_number
from app.quiz.errors import RateLimitedError
from app.quiz.views import AnswerView, Feedback


@dataclass(frozen=True, slots=True)
class FeedbackLine:
    label: str | None  # the misconception's name, when the option or the diagnosis names one
    text: str


class QuizText:
    def __init__(self, translations: gettext.GNUTranslations, language: str) -> None:
        self.translations = translations
        self.language = language

    def get(self, message: str, **params: Any) -> str:
        translated = self.translations.gettext(message)
        return translated % params if params else translated

    def submission_error(self, code: str, unit: str | None = None) -> str:
        return self.get(
            messages.SUBMISSION_ERRORS.get(code, messages.SUBMISSION_ERRORS["malformed"]),
            **({"unit": unit or ""} if code == "wrong_dimension" else {}),
        )

    def conflict(self, code: str) -> str:
        return self.get(messages.CONFLICTS[code])

    def not_found(self) -> str:
        return self.get(messages.NOT_FOUND)

    def rate_limited(self, error: RateLimitedError, attempts_per_day: int | None) -> str:
        wait = self.duration(error.retry_after_s)
        if error.reason == "exam_daily":
            return self.get(messages.RATE_LIMITS["exam_daily"], count=attempts_per_day or 0, wait=wait)
        if error.reason == "exam_gap":
            return self.get(messages.RATE_LIMITS["exam_gap"], wait=wait)
        return self.get(messages.RATE_LIMITS["requests"], seconds=error.retry_after_s)

    def duration(self, seconds: int) -> str:
        minutes = -(-seconds // 60)
        if minutes >= 90:
            hours = -(-minutes // 60)
            return self.translations.ngettext("%(num)d hour", "%(num)d hours", hours) % {"num": hours}
        return self.translations.ngettext("%(num)d minute", "%(num)d minutes", minutes) % {"num": minutes}

    def misconception(self, code: str | None) -> str | None:
        if code is None or code not in messages.MISCONCEPTIONS:
            return None
        return self.get(messages.MISCONCEPTIONS[code])

    def feedback(self, answer: AnswerView) -> list[FeedbackLine]:
        return [self._line(item) for item in answer.feedback]

    def _line(self, item: Feedback) -> FeedbackLine:
        if item.text is not None:
            return FeedbackLine(self.misconception(item.misconception), item.text.get(self.language))
        if item.diagnosis is not None:
            first = item.diagnosis.split("+")[0]
            label = self.misconception(first) if "+" not in item.diagnosis else None
            template = messages.DIAGNOSES.get(item.diagnosis, messages.DIAGNOSES["arithmetic"])
            ratio = format_decimal(item.ratio or 0, format="#,##0.###", locale=self.language)
            params = {"ratio": ratio} if "%(ratio)s" in template else {}
            return FeedbackLine(label, self.get(template, **params))
        return FeedbackLine(self.misconception(item.misconception), "")

    def expected(self, answer: AnswerView) -> str | None:
        if answer.correct_value is None:
            return None
        return f"{format_number(answer.correct_value, self.language)} {answer.drawn.unit}"
