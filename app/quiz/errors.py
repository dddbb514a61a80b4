"""Domain errors of the quiz service. The web layer maps each to an HTTP response once (app/web/exceptions.py),
as a page, an HTMX fragment or JSON, in the learner's language; the errors carry what that response shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.quiz.bank import Quiz
    from app.quiz.readmodels import AnswerView, AttemptView
    from app.quiz.service import Landing


class QuizError(Exception):
    pass


class QuizNotFoundError(QuizError):
    pass


class AttemptNotFoundError(QuizError):
    """Unknown attempt, or one that belongs to another learner: the two are indistinguishable on purpose."""


class QuestionError(QuizError):
    """An answer to `question_id` of `attempt` was not accepted; the attempt is shown as it is now."""

    def __init__(self, attempt: AttemptView, question_id: str, code: str) -> None:
        super().__init__(code)
        self.attempt = attempt
        self.question_id = question_id
        self.code = code


class InvalidSubmissionError(QuestionError):
    """The answer cannot be graded (malformed, unknown token, wrong kind of unit, out of range); nothing was
    stored. `typed` is what the learner typed, shown again in the field beside the message."""

    def __init__(self, attempt: AttemptView, question_id: str, code: str, typed: str | None = None) -> None:
        super().__init__(attempt, question_id, code)
        self.typed = typed


class AlreadyAnsweredError(QuestionError):
    """The question is locked; carries the stored result, which did not change."""

    def __init__(self, attempt: AttemptView, answer: AnswerView) -> None:
        super().__init__(attempt, answer.question_id, "already_answered")
        self.answer = answer


class AttemptClosedError(QuestionError):
    """The attempt is finished or expired (code "timed_out": it expired just now, because of this request)."""


class UnknownQuestionError(QuizError):
    """The question is not part of the attempt (or the attempt's question cannot be shown)."""


class RateLimitedError(QuizError):
    """Too many requests (`reason`: "requests", "exam_daily" or "exam_gap"); retry after `retry_after_s`.

    `quiz` and `landing` are set when a start was refused (the quiz's landing page, as it is now, shows the
    message), `attempt` and `question_id` when an answer was (its question shows it)."""

    def __init__(
        self,
        retry_after_s: int,
        reason: str = "requests",
        quiz: Quiz | None = None,
        attempt: AttemptView | None = None,
        question_id: str | None = None,
        landing: Landing | None = None,
    ) -> None:
        super().__init__(reason)
        self.retry_after_s = retry_after_s
        self.reason = reason
        self.quiz = quiz
        self.attempt = attempt
        self.question_id = question_id
        self.landing = landing
