"""The quiz service: start an attempt, lock an answer, finish once, read attempts and progress.

`QuizService` is built once per app with what it needs and owns its transactions: each public method runs one
transaction through `Database.run` (which decides between the event loop and a thread) and raises domain errors
(`app.quiz.errors`) that the web layer maps to HTTP once. Everything goes through SQLAlchemy 2: the ORM for
rows, Core statements built from the mapped tables where one statement must decide a race.

Concurrency:
- A write transaction on SQLite starts with BEGIN IMMEDIATE, so writers are serialised.
- On PostgreSQL, answer and finish lock the attempt row first (SELECT ... FOR UPDATE), so an answer cannot slip
  in between the finishing UPDATE and the score it computes.
- Starting upserts the learner row first (an attempt is a learner's first write); the upsert also locks that row
  on PostgreSQL, which serialises a learner's concurrent starts (the exam's attempts-per-day check).
- An answer is an INSERT ... ON CONFLICT DO NOTHING on UNIQUE(attempt_id, question_id): a second, concurrent or
  replayed answer inserts nothing and gets the stored one back, without aborting the transaction.
- Finishing is UPDATE ... WHERE state IN ('created', 'in_progress'): only one request can change the row.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import Session, defer

from app.conflict import insert_or_ignore
from app.context import RequestContext
from app.db import Database, DatabaseUnavailableError
from app.learners.service import ensure_learner
from app.quiz.bank import Quiz, QuizCatalog
from app.quiz.draw import draw_attempt
from app.quiz.errors import (
    AlreadyAnsweredError,
    AttemptClosedError,
    AttemptNotFoundError,
    InvalidSubmissionError,
    QuizNotFoundError,
    RateLimitedError,
    UnknownQuestionError,
)
from app.quiz.grading import Grade, SubmissionError, grade_choice, grade_numeric
from app.quiz.models import OPEN_STATES, QuizAnswer, QuizAttempt, aware
from app.quiz.readmodels import (
    AnswerView,
    AttemptView,
    DrawnView,
    answer_view,
    attempt_view,
    drawn_for,
    stored_questions,
)
from app.quiz.units import QuantityError, has_unit, quantity_from_parts
from app.ratelimit import Limit, check_and_count

ATTEMPT_ID_BYTES = 16  # 128 bits: unguessable (and still checked against the owner)
_ATTEMPT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what secrets.token_urlsafe makes
TOKEN_BYTES = 9
MAX_TOKENS = 32
MAX_TYPED_LENGTH = 80

# The statements of the answer path, built once with bound parameters: SQLAlchemy then compiles each a single time
# (building a statement per call cost as much as the database's work).
# The drawn questions (a JSON column) are loaded only when readmodels.drawn_for has not remembered them yet.
_ATTEMPT = select(QuizAttempt).options(defer(QuizAttempt.questions)).where(QuizAttempt.id == bindparam("attempt_id"))
_ATTEMPT_LOCKED = _ATTEMPT.with_for_update()
_ANSWERS = select(QuizAnswer).where(QuizAnswer.attempt_id == bindparam("attempt_id")).order_by(QuizAnswer.id)
_PASSED = (
    select(QuizAttempt.id)
    .where(
        QuizAttempt.learner_id == bindparam("learner_id"),
        QuizAttempt.quiz_id == bindparam("quiz_id"),
        QuizAttempt.passed.is_(True),
    )
    .limit(1)
)
_MARK_IN_PROGRESS = (
    update(QuizAttempt)
    .where(QuizAttempt.id == bindparam("attempt_id"), QuizAttempt.state == "created")
    .values(state="in_progress")
)
_CLOSE = (
    update(QuizAttempt)
    .where(QuizAttempt.id == bindparam("attempt_id"), QuizAttempt.state.in_(OPEN_STATES))
    .values(state=bindparam("new_state"), finished_at=bindparam("finished_at"))
)
_CORRECT_COUNT = (
    select(func.count())
    .select_from(QuizAnswer)
    .where(QuizAnswer.attempt_id == bindparam("attempt_id"), QuizAnswer.correct.is_(True))
)
_SCORE = (
    update(QuizAttempt)
    .where(QuizAttempt.id == bindparam("attempt_id"))
    .values(
        correct_count=bindparam("correct_count"), score_percent=bindparam("score_percent"), passed=bindparam("passed")
    )
)
_ANSWERED = (
    select(func.count())
    .select_from(QuizAnswer)
    .where(QuizAnswer.attempt_id == QuizAttempt.id)
    .correlate(QuizAttempt)
    .scalar_subquery()
)
_OPEN_ATTEMPTS = (
    select(QuizAttempt.quiz_id, QuizAttempt.id, QuizAttempt.question_count, QuizAttempt.deadline_at, _ANSWERED)
    .where(QuizAttempt.learner_id == bindparam("learner_id"), QuizAttempt.state.in_(OPEN_STATES))
    .order_by(QuizAttempt.started_at.desc())
)
_ANSWER_COLUMNS: dict[str, Any] = {
    name: bindparam(name)
    for name in ("attempt_id", "question_id", "chosen", "text", "value", "correct", "diagnosis", "ratio", "answered_at")
}
_INSERT_ANSWER = insert_or_ignore(
    QuizAnswer,
    index_elements=[QuizAnswer.attempt_id, QuizAnswer.question_id],
    values=_ANSWER_COLUMNS,
    returning=[QuizAnswer.id],
)


@dataclass(frozen=True, slots=True)
class QuizPolicy:
    """Rate limits per learner and per client address (a new cookie is free, an address is not)."""

    start_per_learner: Limit = field(default_factory=lambda: Limit(20, 600))
    start_per_client: Limit = field(default_factory=lambda: Limit(120, 600))
    exam_start_per_client: Limit = field(default_factory=lambda: Limit(12, 86_400))
    answer_per_learner: Limit = field(default_factory=lambda: Limit(40, 60))
    answer_per_client: Limit = field(default_factory=lambda: Limit(600, 60))


@dataclass(frozen=True, slots=True)
class ChoiceSubmission:
    tokens: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NumericSubmission:
    value: float | str
    unit: str | None = None


Submission = ChoiceSubmission | NumericSubmission


@dataclass(frozen=True, slots=True)
class Answered:
    """A newly locked answer and the attempt as it is now."""

    attempt: AttemptView
    answer: AnswerView


@dataclass(frozen=True, slots=True)
class ExamStatus:
    attempts_in_window: int
    attempts_per_day: int | None
    next_start_at: datetime | None  # None: may start now
    wait_reason: str | None  # "exam_daily" or "exam_gap" while next_start_at is set
    passed: bool

    def wait(self, now: datetime) -> RateLimitedError | None:
        """Why a start would be refused now, as the error a start would raise."""
        if self.next_start_at is None or self.wait_reason is None:
            return None
        return RateLimitedError(_seconds_until(self.next_start_at, now), self.wait_reason)


@dataclass(frozen=True, slots=True)
class Landing:
    """What a quiz's landing page shows the learner."""

    quiz: Quiz
    latest: AttemptView | None
    best_percent: int | None
    exam: ExamStatus | None


@dataclass(frozen=True, slots=True)
class OpenAttempt:
    """An attempt the learner left unfinished, for home's "Continue" (the newest per quiz)."""

    quiz_id: str
    attempt_id: str
    answered: int
    total: int
    deadline_at: datetime | None  # UTC; None for an untimed practice quiz


@dataclass(frozen=True, slots=True)
class Progress:
    best_scores: dict[str, int]  # quiz id -> best score over closed attempts, in percent
    overall_percent: int  # mean of the best scores of every chapter quiz and the exam (one not taken counts 0)
    continue_chapter: str | None = None  # the first chapter, in course order, whose quiz is not passed yet
    ready_for_exam: bool = False  # every chapter quiz passed
    exam_passed: bool = False
    available: bool = True  # False when the database did not answer: the page shows no progress
    open_attempts: tuple[OpenAttempt, ...] = ()  # unfinished and not timed out, the exam first

    @property
    def started(self) -> bool:
        return bool(self.best_scores) or bool(self.open_attempts)

    def open_attempt(self, quiz_id: str) -> OpenAttempt | None:
        return next((attempt for attempt in self.open_attempts if attempt.quiz_id == quiz_id), None)


def _seconds_until(moment: datetime, now: datetime) -> int:
    return max(1, int((moment - now).total_seconds() + 0.999))


def _expired(attempt: QuizAttempt, now: datetime) -> bool:
    return attempt.deadline_at is not None and now >= aware(attempt.deadline_at)


class QuizService:
    def __init__(
        self,
        database: Database,
        catalog: QuizCatalog,
        policy: QuizPolicy | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.database = database
        self.catalog = catalog
        self.policy = policy or QuizPolicy()
        self.clock = clock

    # --- the bank ----------------------------------------------------------------------------------------

    def quiz(self, quiz_id: str) -> Quiz:
        quiz = self.catalog.get(quiz_id)
        if quiz is None:
            raise QuizNotFoundError(quiz_id)
        return quiz

    def chapter_quiz(self, slug: str) -> Quiz:
        quiz = self.catalog.chapter_quiz(slug)
        if quiz is None:
            raise QuizNotFoundError(slug)
        return quiz

    def exam(self) -> Quiz:
        quiz = self.catalog.exam
        if quiz is None:
            raise QuizNotFoundError("exam")
        return quiz

    # --- reads and writes --------------------------------------------------------------------------------

    async def landing(self, context: RequestContext, quiz: Quiz) -> Landing:
        return await self.database.run(lambda session: self._landing(session, context, quiz), write=True)

    def _landing(self, session: Session, context: RequestContext, quiz: Quiz) -> Landing:
        latest_id = session.scalar(
            select(QuizAttempt.id)
            .where(QuizAttempt.learner_id == context.learner_id, QuizAttempt.quiz_id == quiz.id)
            .order_by(QuizAttempt.started_at.desc())
            .limit(1)
        )
        latest = self._current(session, context, latest_id) if latest_id is not None else None
        best = self._best_scores(session, context.learner_id).get(quiz.id)
        exam = self._exam_status(session, quiz, context) if quiz.is_exam else None
        return Landing(quiz, latest, best, exam)

    def _refused_start(
        self, session: Session, context: RequestContext, quiz: Quiz, retry_after_s: int, reason: str = "requests"
    ) -> RateLimitedError:
        """A refused start counts against nothing (rolled back); the error carries the landing page that says so."""
        session.rollback()
        landing = self._landing(session, context, quiz)
        session.commit()  # what the landing closed (an attempt past its deadline), as a view of it would
        return RateLimitedError(retry_after_s, reason, quiz=quiz, landing=landing)

    async def start(self, context: RequestContext, quiz: Quiz) -> AttemptView:
        """Draw a new attempt; the learner's first write, so their row is created (or touched) here too."""

        def work(session: Session) -> AttemptView:
            ensure_learner(session, context.learner_id, context.language)
            limits = [
                (f"start:l:{context.learner_id}", self.policy.start_per_learner),
                (f"start:c:{context.client}", self.policy.start_per_client),
            ]
            if quiz.is_exam:
                limits.append((f"exam:c:{context.client}", self.policy.exam_start_per_client))
            refusal = check_and_count(session, limits, context.now)
            if refusal is not None:
                raise self._refused_start(session, context, quiz, refusal.retry_after_s)
            if quiz.attempts_per_day is not None or quiz.seconds_between_attempts:
                wait = self._exam_status(session, quiz, context).wait(context.now)
                if wait is not None:  # the refused start must not count against the address either
                    raise self._refused_start(session, context, quiz, wait.retry_after_s, wait.reason)
            open_attempts = session.scalars(
                select(QuizAttempt)
                .where(
                    QuizAttempt.learner_id == context.learner_id,
                    QuizAttempt.quiz_id == quiz.id,
                    QuizAttempt.state.in_(OPEN_STATES),
                )
                .with_for_update()
            ).all()
            for attempt in open_attempts:  # starting over abandons the earlier sitting
                self._close(session, attempt, quiz, "expired", context.now)
            return self._draw(session, context, quiz)

        return await self.database.run(work, write=True)

    def _draw(self, session: Session, context: RequestContext, quiz: Quiz) -> AttemptView:
        seed = secrets.randbits(63)
        stored = [
            (
                item.question_id,
                item.parameters,
                [(index, secrets.token_urlsafe(TOKEN_BYTES)) for index in item.option_order],
            )
            for item in draw_attempt(quiz, seed)
        ]
        attempt = QuizAttempt(
            id=secrets.token_urlsafe(ATTEMPT_ID_BYTES),
            learner_id=context.learner_id,
            quiz_id=quiz.id,
            state="created",
            seed=seed,
            questions=stored_questions(stored),
            question_count=len(stored),
            started_at=context.now,
            deadline_at=context.now + timedelta(seconds=quiz.time_limit_s) if quiz.time_limit_s else None,
        )
        session.add(attempt)
        session.flush()
        return attempt_view(attempt, quiz, [], not quiz.is_exam, drawn_for(attempt, quiz))

    async def attempt(self, context: RequestContext, attempt_id: str) -> AttemptView:
        """The attempt as its learner may see it; one past its time limit is closed here (with what is stored)."""
        return await self.database.run(lambda session: self._current(session, context, attempt_id), write=True)

    async def answer(
        self, context: RequestContext, attempt_id: str, question_id: str, submission: Submission
    ) -> Answered:
        def work(session: Session) -> Answered:
            refusal = check_and_count(
                session,
                [
                    (f"answer:l:{context.learner_id}", self.policy.answer_per_learner),
                    (f"answer:c:{context.client}", self.policy.answer_per_client),
                ],
                context.now,
            )
            attempt, quiz = self._load(session, context, attempt_id, lock=True)
            view = self._view(session, context, attempt, quiz)
            drawn = view.question(question_id)
            if drawn is None:
                raise UnknownQuestionError(question_id)
            if refusal is not None:
                raise RateLimitedError(refusal.retry_after_s, attempt=view, question_id=question_id)
            stored = view.answers.get(question_id)
            if stored is not None:
                session.commit()
                raise AlreadyAnsweredError(view, stored)
            if attempt.state not in OPEN_STATES:
                session.commit()
                raise AttemptClosedError(view, question_id, "closed")
            if _expired(attempt, context.now):
                self._close(session, attempt, quiz, "expired", context.now)
                closed = self._view(session, context, attempt, quiz)
                session.commit()
                raise AttemptClosedError(closed, question_id, "timed_out")
            try:
                grade, chosen, typed, value = _grade(drawn, submission)
            except SubmissionError as error:
                session.commit()
                value_typed = submission.value if isinstance(submission, NumericSubmission) else None
                shown = value_typed[:MAX_TYPED_LENGTH] if isinstance(value_typed, str) else None
                raise InvalidSubmissionError(view, question_id, error.code, shown) from None
            return self._record_answer(session, view, attempt, drawn, grade, chosen, typed, value, context.now)

        return await self.database.run(work, write=True)

    def _record_answer(
        self,
        session: Session,
        view: AttemptView,
        attempt: QuizAttempt,
        drawn: DrawnView,
        grade: Grade,
        chosen: list[int] | None,
        typed: str | None,
        value: float | None,
        now: datetime,
    ) -> Answered:
        """Store the graded answer, which locks it: (attempt, question) is unique, so a second answer inserts
        nothing and is refused."""
        inserted = (
            session.connection()
            .execute(
                _INSERT_ANSWER.on(session),
                {
                    "attempt_id": attempt.id,
                    "question_id": drawn.id,
                    "chosen": chosen,
                    "text": typed,
                    "value": value,
                    "correct": grade.correct,
                    "diagnosis": grade.diagnosis,
                    "ratio": grade.ratio,
                    "answered_at": now,
                },
            )
            .first()
        )
        if inserted is None:  # lost a race that the row lock should have prevented: still, never grade twice
            row = session.scalars(
                select(QuizAnswer).where(QuizAnswer.attempt_id == attempt.id, QuizAnswer.question_id == drawn.id)
            ).one()
            stored = answer_view(drawn, row, view.reveal)
            session.commit()
            raise AlreadyAnsweredError(replace(view, answers={**view.answers, drawn.id: stored}), stored)
        if attempt.state == "created":
            session.connection().execute(_MARK_IN_PROGRESS, {"attempt_id": attempt.id})
        locked = AnswerView(drawn.id, drawn, grade, tuple(chosen or ()), typed, answered=True, reveal=view.reveal)
        return Answered(replace(view, state="in_progress", answers={**view.answers, drawn.id: locked}), locked)

    async def finish(self, context: RequestContext, attempt_id: str) -> AttemptView:
        """Close the attempt (once: a repeated finish returns the stored result)."""

        def work(session: Session) -> AttemptView:
            attempt, quiz = self._load(session, context, attempt_id, lock=True)
            state = "expired" if _expired(attempt, context.now) else "finished"
            self._close(session, attempt, quiz, state, context.now)
            return self._view(session, context, attempt, quiz)

        return await self.database.run(work, write=True)

    async def progress(self, context: RequestContext, chapter_order: Sequence[str]) -> Progress:
        """The learner's progress over the chapter quizzes and the exam, and where to continue; with the
        database down, an empty progress marked unavailable (the home page still opens)."""

        def work(session: Session) -> Progress:
            progress = self._progress(self._best_scores(session, context.learner_id), chapter_order)
            return replace(progress, open_attempts=self._open_attempts(session, context, chapter_order))

        if not context.returning:
            return self._progress({}, chapter_order)
        try:
            return await self.database.run(work)
        except DatabaseUnavailableError:
            return Progress({}, 0, available=False)

    def _progress(self, best: dict[str, int], chapter_order: Sequence[str]) -> Progress:
        counted = [quiz for quiz in self.catalog if not quiz.is_exam or self.catalog.exam is quiz]
        overall = round(sum(best.get(quiz.id, 0) for quiz in counted) / len(counted)) if counted else 0
        exam = self.catalog.exam
        exam_passed = exam is not None and best.get(exam.id, 0) >= exam.pass_percent
        if not best:
            return Progress(best, overall)
        for slug in chapter_order:
            quiz = self.catalog.chapter_quiz(slug)
            if quiz is not None and best.get(quiz.id, 0) < quiz.pass_percent:
                return Progress(best, overall, continue_chapter=slug, exam_passed=exam_passed)
        return Progress(best, overall, ready_for_exam=exam is not None, exam_passed=exam_passed)

    # --- within a transaction ----------------------------------------------------------------------------

    def _load(self, session: Session, context: RequestContext, attempt_id: str, lock: bool) -> tuple[QuizAttempt, Quiz]:
        if not _ATTEMPT_ID.fullmatch(attempt_id):  # not one we made, and PostgreSQL fails on a NUL in the query
            raise AttemptNotFoundError(attempt_id)
        statement = _ATTEMPT_LOCKED if lock else _ATTEMPT
        attempt = session.scalars(statement, {"attempt_id": attempt_id[:64]}).one_or_none()
        quiz = self.catalog.get(attempt.quiz_id) if attempt is not None else None
        if attempt is None or quiz is None or not secrets.compare_digest(attempt.learner_id, context.learner_id):
            raise AttemptNotFoundError(attempt_id)
        return attempt, quiz

    def _current(self, session: Session, context: RequestContext, attempt_id: str) -> AttemptView:
        attempt, quiz = self._load(session, context, attempt_id, lock=False)
        if attempt.state in OPEN_STATES and _expired(attempt, context.now):
            attempt, quiz = self._load(session, context, attempt_id, lock=True)
            self._close(session, attempt, quiz, "expired", context.now)
        return self._view(session, context, attempt, quiz)

    def _view(self, session: Session, context: RequestContext, attempt: QuizAttempt, quiz: Quiz) -> AttemptView:
        answers = list(session.scalars(_ANSWERS, {"attempt_id": attempt.id}))
        reveal = self._reveal(session, quiz, attempt, context)
        return attempt_view(attempt, quiz, answers, reveal, drawn_for(attempt, quiz))

    def _reveal(self, session: Session, quiz: Quiz, attempt: QuizAttempt, context: RequestContext) -> bool:
        """Practice quizzes judge every answer at once. The exam judges none while an attempt is open, and after
        it only for a learner who has passed the exam (that attempt or an earlier one)."""
        if not quiz.is_exam:
            return True
        return attempt.state not in OPEN_STATES and self._has_passed(session, quiz, context.learner_id)

    @staticmethod
    def _has_passed(session: Session, quiz: Quiz, learner_id: str) -> bool:
        return session.scalar(_PASSED, {"learner_id": learner_id, "quiz_id": quiz.id}) is not None

    @staticmethod
    def _close(session: Session, attempt: QuizAttempt, quiz: Quiz, state: str, now: datetime) -> None:
        """The one finalisation: a conditional UPDATE, then the score of what is stored."""
        connection = session.connection()
        closed = connection.execute(_CLOSE, {"attempt_id": attempt.id, "new_state": state, "finished_at": now})
        if closed.rowcount == 1:
            correct = connection.execute(_CORRECT_COUNT, {"attempt_id": attempt.id}).scalar_one()
            total = attempt.question_count
            connection.execute(
                _SCORE,
                {
                    "attempt_id": attempt.id,
                    "correct_count": correct,
                    "score_percent": round(100 * correct / total) if total else 0,
                    "passed": total > 0 and correct * 100 >= quiz.pass_percent * total,
                },
            )
        session.refresh(attempt)

    def _exam_status(self, session: Session, quiz: Quiz, context: RequestContext) -> ExamStatus:
        window_start = context.now - timedelta(days=1)
        recent = [
            aware(moment)
            for moment in session.scalars(
                select(QuizAttempt.started_at)
                .where(
                    QuizAttempt.learner_id == context.learner_id,
                    QuizAttempt.quiz_id == quiz.id,
                    QuizAttempt.started_at > window_start,
                )
                .order_by(QuizAttempt.started_at)
            )
        ]
        waits: list[tuple[datetime, str]] = []
        if quiz.attempts_per_day is not None and len(recent) >= quiz.attempts_per_day:
            waits.append((recent[-quiz.attempts_per_day] + timedelta(days=1), "exam_daily"))
        if recent and quiz.seconds_between_attempts:
            waits.append((recent[-1] + timedelta(seconds=quiz.seconds_between_attempts), "exam_gap"))
        pending = [(moment, reason) for moment, reason in waits if moment > context.now]
        moment, reason = max(pending) if pending else (None, None)
        return ExamStatus(
            attempts_in_window=len(recent),
            attempts_per_day=quiz.attempts_per_day,
            next_start_at=moment,
            wait_reason=reason,
            passed=self._has_passed(session, quiz, context.learner_id),
        )

    def _open_attempts(
        self, session: Session, context: RequestContext, chapter_order: Sequence[str]
    ) -> tuple[OpenAttempt, ...]:
        """The newest open attempt of each quiz whose clock has not run out (a timed-out one is closed the next
        time it is read; home only reads, so it leaves it out here), the exam first, then in course order."""
        rows = session.execute(_OPEN_ATTEMPTS, {"learner_id": context.learner_id}).all()
        found: dict[str, OpenAttempt] = {}
        for quiz_id, attempt_id, total, deadline_at, answered in rows:
            quiz = self.catalog.get(quiz_id)
            ends = aware(deadline_at) if deadline_at is not None else None
            if quiz is None or quiz_id in found or (ends is not None and context.now >= ends):
                continue
            found[quiz_id] = OpenAttempt(quiz_id, attempt_id, int(answered), int(total), ends)
        order = [self.catalog.exam.id] if self.catalog.exam is not None else []
        return tuple(found[quiz_id] for quiz_id in [*order, *chapter_order] if quiz_id in found)

    @staticmethod
    def _best_scores(session: Session, learner_id: str) -> dict[str, int]:
        rows = session.execute(
            select(QuizAttempt.quiz_id, func.max(QuizAttempt.score_percent))
            .where(QuizAttempt.learner_id == learner_id, QuizAttempt.state.not_in(OPEN_STATES))
            .group_by(QuizAttempt.quiz_id)
        )
        return {quiz_id: int(best) for quiz_id, best in rows if best is not None}


def _grade(drawn: DrawnView, submission: Submission) -> tuple[Grade, list[int] | None, str | None, float | None]:
    """The grade, and what is stored: chosen option indexes, or the quantity as typed and in base units.
    Raises SubmissionError for what cannot be graded."""
    try:
        if drawn.type == "numeric":
            if not isinstance(submission, NumericSubmission):
                raise SubmissionError("expected_value")
            assert drawn.unit is not None
            quantity = quantity_from_parts(submission.value, submission.unit, drawn.unit)
            grade = grade_numeric(drawn.question, drawn.question.compute(drawn.parameters), quantity)
            typed = (
                f"{submission.value} {submission.unit}"
                if submission.unit and not isinstance(submission.value, str)
                else str(submission.value).strip()
            )
            if not has_unit(typed):  # a bare number is read in the question's unit, and shown with it
                typed = f"{typed} {quantity.unit.symbol}"
            return grade, None, typed[:MAX_TYPED_LENGTH], quantity.base_value
        if not isinstance(submission, ChoiceSubmission):
            raise SubmissionError("expected_tokens")
        indexes = drawn.token_to_index()
        if len(submission.tokens) > MAX_TOKENS or any(token not in indexes for token in submission.tokens):
            raise SubmissionError("unknown_option")
        chosen = sorted({indexes[token] for token in submission.tokens})
        return grade_choice(drawn.question, chosen), chosen, None, None
    except QuantityError as error:
        raise SubmissionError(error.code) from None
