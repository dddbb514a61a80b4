"""Quiz transactions: start an attempt, lock an answer, finish once, read progress.

Every function takes a Session, runs one transaction and commits it (or raises a domain error after
committing what must persist, such as a rate-limit hit or an expiry). Concurrency:
- A write session on SQLite starts with BEGIN IMMEDIATE, so writers are serialised.
- On PostgreSQL, answer and finish lock the attempt row first (SELECT ... FOR UPDATE), so an answer cannot slip
  in between the finishing UPDATE and the score it computes.
- start_attempt upserts the learner row first (an attempt is a learner's first write). The upsert also locks
  that row on PostgreSQL, which serialises a learner's concurrent starts (the exam's attempts-per-day check).
- An answer is an INSERT ... ON CONFLICT DO NOTHING on UNIQUE(attempt_id, question_id): a second, concurrent or
  replayed answer inserts nothing and gets the stored one back, without aborting the transaction.
- Finishing is UPDATE ... WHERE state IN ('created', 'in_progress'): only one request can change the row.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sqlalchemy import CursorResult, bindparam, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.learners.service import ensure_learner
from app.quiz import ratelimit
from app.quiz.bank import Quiz, QuizCatalog
from app.quiz.draw import draw_attempt
from app.quiz.errors import (
    AlreadyAnsweredError,
    AttemptClosedError,
    AttemptNotFoundError,
    InvalidSubmissionError,
    QuizNotFoundError,
    RateLimitedError,
)
from app.quiz.grading import Grade, SubmissionError, grade_choice, grade_numeric
from app.quiz.models import OPEN_STATES, QuizAnswer, QuizAttempt, aware
from app.quiz.ratelimit import Limit
from app.quiz.units import QuantityError, quantity_from_parts
from app.quiz.views import AnswerView, AttemptView, DrawnView, StoredAnswer, answer_view, attempt_view, stored_questions

ATTEMPT_ID_BYTES = 16  # 128 bits: unguessable (and still checked against the owner)
TOKEN_BYTES = 9
MAX_TOKENS = 32


# The answer path is the hot one: its statements are built once here, with bound parameters, because building
# a SQLAlchemy statement per request costs more than running it on SQLite.
_ATTEMPT_FOR_UPDATE = select(QuizAttempt).where(QuizAttempt.id == bindparam("attempt_id")).with_for_update()
_ATTEMPT = select(QuizAttempt).where(QuizAttempt.id == bindparam("attempt_id"))
_ANSWERS = select(
    QuizAnswer.question_id, QuizAnswer.chosen, QuizAnswer.text, QuizAnswer.correct, QuizAnswer.diagnosis,
    QuizAnswer.ratio,
).where(QuizAnswer.attempt_id == bindparam("attempt_id"))
_ANSWERS_TABLE = QuizAnswer.__table__
_INSERT_ANSWER = {
    name: dialect.insert(_ANSWERS_TABLE)
    .on_conflict_do_nothing(index_elements=["attempt_id", "question_id"])
    .returning(_ANSWERS_TABLE.c.id)
    for name, dialect in (("postgresql", postgresql), ("sqlite", sqlite))
}
_MARK_IN_PROGRESS = (
    update(QuizAttempt)
    .where(QuizAttempt.id == bindparam("attempt_id"), QuizAttempt.state == "created")
    .values(state="in_progress")
    .execution_options(synchronize_session=False)
)


@dataclass(frozen=True, slots=True)
class QuizPolicy:
    """Rate limits per learner and per client address (a new cookie is free, an address is not)."""

    start_per_learner: Limit = field(default_factory=lambda: Limit(20, 600))
    start_per_client: Limit = field(default_factory=lambda: Limit(120, 600))
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


def _limit(session: Session, keys: list[tuple[str, Limit]], now: datetime) -> None:
    decisions = ratelimit.hit_all(session, keys, now)
    waits = [decision.retry_after_s for decision in decisions if not decision.allowed]
    if waits:
        session.commit()
        raise RateLimitedError(max(waits))


def start_attempt(
    session: Session, catalog: QuizCatalog, learner_id: str, language: str, quiz_id: str, client: str,
    now: datetime, policy: QuizPolicy,
) -> AttemptView:
    """Draw a new attempt; the learner's first write, so their row is created (or touched) here too."""
    quiz = catalog.get(quiz_id)
    if quiz is None:
        raise QuizNotFoundError(quiz_id)
    ensure_learner(session, learner_id, language)
    _limit(session, [(f"start:l:{learner_id}", policy.start_per_learner),
                     (f"start:c:{client}", policy.start_per_client)], now)
    if quiz.attempts_per_day is not None or quiz.seconds_between_attempts:
        wait_s = _exam_wait_s(session, quiz, learner_id, now)
        if wait_s is not None:
            session.commit()
            raise RateLimitedError(wait_s[0], wait_s[1])
    for open_attempt in session.scalars(
        select(QuizAttempt).where(QuizAttempt.learner_id == learner_id, QuizAttempt.quiz_id == quiz.id,
                                  QuizAttempt.state.in_(OPEN_STATES))
    ):
        _close(session, open_attempt, quiz, "expired", now)  # starting over abandons the earlier sitting
    ratelimit.forget_before(session, now)

    seed = secrets.randbits(63)
    drawn = draw_attempt(quiz, seed)
    stored = []
    for item in drawn:
        tokens = [secrets.token_urlsafe(TOKEN_BYTES) for _ in item.option_order]
        stored.append((item.question_id, item.parameters, list(zip(item.option_order, tokens, strict=True))))
    attempt = QuizAttempt(
        id=secrets.token_urlsafe(ATTEMPT_ID_BYTES),
        learner_id=learner_id,
        quiz_id=quiz.id,
        state="created",
        seed=seed,
        questions=stored_questions(stored),
        question_count=len(drawn),
        started_at=now,
        deadline_at=now + timedelta(seconds=quiz.time_limit_s) if quiz.time_limit_s else None,
    )
    session.add(attempt)
    session.commit()
    return attempt_view(attempt, quiz, [])


def _exam_wait_s(session: Session, quiz: Quiz, learner_id: str, now: datetime) -> tuple[int, str] | None:
    window_start = now - timedelta(days=1)
    recent = [aware(moment) for moment in session.scalars(
        select(QuizAttempt.started_at).where(QuizAttempt.learner_id == learner_id, QuizAttempt.quiz_id == quiz.id,
                                             QuizAttempt.started_at > window_start)
        .order_by(QuizAttempt.started_at)
    )]
    waits: list[tuple[datetime, str]] = []
    if quiz.attempts_per_day is not None and len(recent) >= quiz.attempts_per_day:
        waits.append((recent[-quiz.attempts_per_day] + timedelta(days=1), "exam_daily"))
    if recent and quiz.seconds_between_attempts:
        waits.append((recent[-1] + timedelta(seconds=quiz.seconds_between_attempts), "exam_gap"))
    pending = [(moment, reason) for moment, reason in waits if moment > now]
    if not pending:
        return None
    moment, reason = max(pending)
    return _seconds_until(moment, now), reason


def _seconds_until(moment: datetime, now: datetime) -> int:
    return max(1, int((moment - now).total_seconds() + 0.999))


def exam_status(session: Session, quiz: Quiz, learner_id: str, now: datetime) -> ExamStatus:
    window_start = now - timedelta(days=1)
    count = session.scalar(
        select(func.count()).select_from(QuizAttempt).where(
            QuizAttempt.learner_id == learner_id, QuizAttempt.quiz_id == quiz.id, QuizAttempt.started_at > window_start)
    ) or 0
    passed = session.scalar(
        select(func.count()).select_from(QuizAttempt).where(
            QuizAttempt.learner_id == learner_id, QuizAttempt.quiz_id == quiz.id, QuizAttempt.passed.is_(True))
    ) or 0
    wait = _exam_wait_s(session, quiz, learner_id, now)
    return ExamStatus(
        attempts_in_window=int(count),
        attempts_per_day=quiz.attempts_per_day,
        next_start_at=now + timedelta(seconds=wait[0]) if wait else None,
        wait_reason=wait[1] if wait else None,
        passed=passed > 0,
    )


def _load(session: Session, catalog: QuizCatalog, learner_id: str, attempt_id: str,
          lock: bool) -> tuple[QuizAttempt, Quiz]:
    statement = _ATTEMPT_FOR_UPDATE if lock else _ATTEMPT
    attempt = session.scalars(statement, {"attempt_id": attempt_id}).one_or_none()
    quiz = catalog.get(attempt.quiz_id) if attempt is not None else None
    if attempt is None or quiz is None or not secrets.compare_digest(attempt.learner_id, learner_id):
        raise AttemptNotFoundError(attempt_id)
    return attempt, quiz


def _answers(session: Session, attempt_id: str) -> list[StoredAnswer]:
    return [StoredAnswer(*row) for row in session.execute(_ANSWERS, {"attempt_id": attempt_id})]


def _view(session: Session, attempt: QuizAttempt, quiz: Quiz) -> AttemptView:
    return attempt_view(attempt, quiz, _answers(session, attempt.id))


def _close(session: Session, attempt: QuizAttempt, quiz: Quiz, state: str, now: datetime) -> bool:
    """The one finalisation: a conditional UPDATE; True when this call made it. Scores what is stored."""
    result = session.execute(
        update(QuizAttempt)
        .where(QuizAttempt.id == attempt.id, QuizAttempt.state.in_(OPEN_STATES))
        .values(state=state, finished_at=now)
        .execution_options(synchronize_session=False)
    )
    claimed = result.rowcount if isinstance(result, CursorResult) else 0
    if claimed != 1:
        session.refresh(attempt)
        return False
    correct = session.scalar(
        select(func.count()).select_from(QuizAnswer).where(QuizAnswer.attempt_id == attempt.id,
                                                           QuizAnswer.correct.is_(True))
    ) or 0
    total = attempt.question_count
    session.execute(
        update(QuizAttempt).where(QuizAttempt.id == attempt.id).values(
            correct_count=correct,
            score_percent=round(100 * correct / total) if total else 0,
            passed=total > 0 and correct * 100 >= quiz.pass_percent * total,
        ).execution_options(synchronize_session=False)
    )
    session.refresh(attempt)
    return True


def _expired(attempt: QuizAttempt, now: datetime) -> bool:
    return attempt.deadline_at is not None and now >= aware(attempt.deadline_at)


def get_attempt(
    session: Session, catalog: QuizCatalog, learner_id: str, attempt_id: str, now: datetime
) -> AttemptView:
    """The attempt as its learner may see it; one past its time limit is closed here (with what is stored)."""
    attempt, quiz = _load(session, catalog, learner_id, attempt_id, lock=False)
    if attempt.state in OPEN_STATES and _expired(attempt, now):
        attempt, quiz = _load(session, catalog, learner_id, attempt_id, lock=True)
        _close(session, attempt, quiz, "expired", now)
    view = _view(session, attempt, quiz)
    session.commit()
    return view


def latest_attempt(session: Session, catalog: QuizCatalog, learner_id: str, quiz_id: str) -> str | None:
    """The id of the learner's most recent attempt at this quiz (open or not)."""
    return session.scalar(
        select(QuizAttempt.id).where(QuizAttempt.learner_id == learner_id, QuizAttempt.quiz_id == quiz_id)
        .order_by(QuizAttempt.started_at.desc()).limit(1)
    )


def submit_answer(
    session: Session, catalog: QuizCatalog, learner_id: str, attempt_id: str, question_id: str,
    submission: Submission, client: str, now: datetime, policy: QuizPolicy,
) -> Answered:
    _limit(session, [(f"answer:l:{learner_id}", policy.answer_per_learner),
                     (f"answer:c:{client}", policy.answer_per_client)], now)
    try:
        attempt, quiz = _load(session, catalog, learner_id, attempt_id, lock=True)
    except AttemptNotFoundError:
        session.commit()
        raise
    view = _view(session, attempt, quiz)
    drawn = view.question(question_id)
    if drawn is None:
        session.commit()
        raise InvalidSubmissionError("unknown_question")
    stored = view.answers.get(question_id)
    if stored is not None:
        session.commit()
        raise AlreadyAnsweredError(stored, view)
    if attempt.state not in OPEN_STATES:
        session.commit()
        raise AttemptClosedError(view)
    if _expired(attempt, now):
        _close(session, attempt, quiz, "expired", now)
        closed = _view(session, attempt, quiz)
        session.commit()
        raise AttemptClosedError(closed, timed_out=True)

    try:
        grade, chosen, text, value = _grade(drawn.question.type, drawn, submission)
    except InvalidSubmissionError:
        session.commit()
        raise
    values = {
        "attempt_id": attempt.id, "question_id": question_id, "chosen": list(chosen) if chosen is not None else None,
        "text": text, "value": value, "correct": grade.correct, "diagnosis": grade.diagnosis, "ratio": grade.ratio,
        "answered_at": now,
    }
    dialect = "postgresql" if session.get_bind().dialect.name == "postgresql" else "sqlite"
    inserted = session.execute(_INSERT_ANSWER[dialect], values).scalar_one_or_none()
    if inserted is None:  # lost a race that the row lock should have prevented: still, never grade twice
        row = session.execute(_ANSWERS.where(QuizAnswer.question_id == question_id),
                              {"attempt_id": attempt.id}).one()
        stored_now = answer_view(drawn, StoredAnswer(*row))
        session.commit()
        raise AlreadyAnsweredError(stored_now, replace(view, answers={**view.answers, question_id: stored_now}))
    locked = answer_view(drawn, StoredAnswer(question_id, list(chosen) if chosen is not None else None, text,
                                             grade.correct, grade.diagnosis, grade.ratio))
    if attempt.state == "created":
        session.execute(_MARK_IN_PROGRESS, {"attempt_id": attempt.id})
    session.commit()
    return Answered(replace(view, state="in_progress", answers={**view.answers, question_id: locked}), locked)


def _grade(
    kind: str, drawn: DrawnView, submission: Submission
) -> tuple[Grade, tuple[int, ...] | None, str | None, float | None]:
    try:
        if kind == "numeric":
            if not isinstance(submission, NumericSubmission):
                raise InvalidSubmissionError("expected_value")
            assert drawn.unit is not None
            quantity = quantity_from_parts(submission.value, submission.unit, drawn.unit)
            grade = grade_numeric(drawn.question, drawn.question.compute(drawn.parameters), quantity)
            typed = f"{submission.value} {submission.unit}" if submission.unit and not isinstance(
                submission.value, str) else str(submission.value)
            return grade, None, typed.strip()[:80], quantity.base_value
        if not isinstance(submission, ChoiceSubmission):
            raise InvalidSubmissionError("expected_tokens")
        if len(submission.tokens) > MAX_TOKENS:
            raise InvalidSubmissionError("unknown_option")
        indexes = drawn.token_to_index()
        unknown = [token for token in submission.tokens if token not in indexes]
        if unknown:
            raise InvalidSubmissionError("unknown_option")
        chosen = tuple(sorted({indexes[token] for token in submission.tokens}))
        return grade_choice(drawn.question, chosen), chosen, None, None
    except QuantityError as error:
        raise InvalidSubmissionError(error.code) from None
    except SubmissionError as error:
        raise InvalidSubmissionError(error.code) from None


def finish_attempt(
    session: Session, catalog: QuizCatalog, learner_id: str, attempt_id: str, now: datetime
) -> AttemptView:
    """Close the attempt (once: a repeated finish returns the stored result)."""
    attempt, quiz = _load(session, catalog, learner_id, attempt_id, lock=True)
    _close(session, attempt, quiz, "expired" if _expired(attempt, now) else "finished", now)
    view = _view(session, attempt, quiz)
    session.commit()
    return view


def best_scores(session: Session, learner_id: str) -> dict[str, int]:
    """The best score per quiz over the learner's closed attempts."""
    rows = session.execute(
        select(QuizAttempt.quiz_id, func.max(QuizAttempt.score_percent))
        .where(QuizAttempt.learner_id == learner_id, QuizAttempt.state.not_in(OPEN_STATES))
        .group_by(QuizAttempt.quiz_id)
    )
    return {quiz_id: int(best) for quiz_id, best in rows if best is not None}


@dataclass(frozen=True, slots=True)
class Progress:
    best_scores: dict[str, int]  # quiz id -> best score over closed attempts, in percent
    overall_percent: int  # mean of the best scores of every chapter quiz (a quiz not yet taken counts 0)
    continue_chapter: str | None = None  # the first chapter, in course order, whose quiz is not passed yet
    ready_for_exam: bool = False  # every chapter quiz passed

    @property
    def started(self) -> bool:
        return bool(self.best_scores)


def course_progress(
    session: Session, catalog: QuizCatalog, learner_id: str, chapter_order: Sequence[str]
) -> Progress:
    """The learner's quiz progress, and where to continue: chapters are taken in `chapter_order`."""
    best = best_scores(session, learner_id)
    chapter_quizzes = [quiz for quiz in catalog if not quiz.is_exam]
    overall = sum(best.get(quiz.id, 0) for quiz in chapter_quizzes) / len(chapter_quizzes) if chapter_quizzes else 0
    if not best:
        return Progress(best, round(overall))
    for slug in chapter_order:
        quiz = catalog.chapter_quiz(slug)
        if quiz is not None and best.get(quiz.id, 0) < quiz.pass_percent:
            return Progress(best, round(overall), continue_chapter=slug)
    return Progress(best, round(overall), ready_for_exam=catalog.exam is not None)
