"""Domain errors of the quiz service; the web layer maps each to an HTTP status and a translated message."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.quiz.views import AnswerView, AttemptView


class QuizError(Exception):
    pass


class QuizNotFoundError(QuizError):
    pass


class AttemptNotFoundError(QuizError):
    """Unknown attempt, or one that belongs to another learner: the two are indistinguishable on purpose."""


class InvalidSubmissionError(QuizError):
    """The answer cannot be graded (malformed, unknown token, wrong kind of unit); nothing was stored."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class AlreadyAnsweredError(QuizError):
    """The question is locked; carries the stored result, which did not change."""

    def __init__(self, answer: AnswerView, attempt: AttemptView) -> None:
        super().__init__(answer.question_id)
        self.answer = answer
        self.attempt = attempt


class AttemptClosedError(QuizError):
    """The attempt is finished or expired (`timed_out`: it expired just now, because of this request)."""

    def __init__(self, attempt: AttemptView, timed_out: bool = False) -> None:
        super().__init__(attempt.state)
        self.attempt = attempt
        self.timed_out = timed_out


class RateLimitedError(QuizError):
    """Too many requests (`reason`: "requests", "exam_daily" or "exam_gap"); retry after `retry_after_s`."""

    def __init__(self, retry_after_s: int, reason: str = "requests") -> None:
        super().__init__(reason)
        self.retry_after_s = retry_after_s
        self.reason = reason
