"""Quiz transactions: start an attempt, lock an answer, finish once, read progress.

Every function takes a Session, runs one transaction and commits it (or raises a domain error after
committing what must persist, such as a rate-limit hit or an expiry). submit_answer, the hottest write, takes a
Core Connection instead (Database.write_connection): it runs only Core statements, and a Session's own
bookkeeping cost more than SQLite's work there. Concurrency:
- A write transaction on SQLite starts with BEGIN IMMEDIATE, so writers are serialised.
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

from sqlalchemy import Connection, bindparam, func, select, update
from sqlalchemy.orm import Session

from app.learners.service import ensure_learner
from app.quiz import ratelimit, store
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
from app.quiz.store import StoredAnswer, StoredAttempt
from app.quiz.units import QuantityError, quantity_from_parts
from app.quiz.views import (
    AnswerView,
    AttemptView,
    DrawnView,
    answer_view,
    attempt_view,
    drawn_questions,
    drawn_questions_from_json,
    stored_questions,
)

ATTEMPT_ID_BYTES = 16  # 128 bits: unguessable (and still checked against the owner)
TOKEN_BYTES = 9
MAX_TOKENS = 32


# The answer path's statements live in app.quiz.store (plain SQL on the driver's cursor: it is the hottest
# write); the rarer ones are built here once, with bound parameters.
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


def _limit(executor: Session | Connection, keys: list[tuple[str, Limit]], now: datetime) -> None:
    decisions = ratelimit.hit_all(executor, keys, now)
    waits = [decision.retry_after_s for decision in decisions if not decision.allowed]
    if waits:
        executor.commit()
        raise RateLimitedError(max(waits))


def start_attempt(
    session: Session,
    catalog: QuizCatalog,
    learner_id: str,
    language: str,
    quiz_id: str,
    client: str,
    now: datetime,
    policy: QuizPolicy,
) -> AttemptView:
    """Draw a new attempt; the learner's first write, so their row is created (or touched) here too."""
    quiz = catalog.get(quiz_id)
    if quiz is None:
        raise QuizNotFoundError(quiz_id)
    ensure_learner(session, learner_id, language)
    _limit(
        session,
        [(f"start:l:{learner_id}", policy.start_per_learner), (f"start:c:{client}", policy.start_per_client)],
        now,
    )
    if quiz.attempts_per_day is not None or quiz.seconds_between_attempts:
        wait_s = _exam_wait_s(session, quiz, learner_id, now)
        if wait_s is not None:
            session.commit()
            raise RateLimitedError(wait_s[0], wait_s[1])
    connection = session.connection()
    open_ids = (
        connection.execute(
            select(QuizAttempt.id).where(
                QuizAttempt.learner_id == learner_id, QuizAttempt.quiz_id == quiz.id, QuizAttempt.state.in_(OPEN_STATES)
            )
        )
        .scalars()
        .all()
    )
    for open_id in open_ids:  # starting over abandons the earlier sitting
        _close(connection, _load(connection, catalog, learner_id, open_id, lock=True), "expired", now)
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
    return attempt_view(attempt, quiz, drawn_questions(attempt.questions, quiz), [])


def _exam_wait_s(session: Session, quiz: Quiz, learner_id: str, now: datetime) -> tuple[int, str] | None:
    window_start = now - timedelta(days=1)
    recent = [
        aware(moment)
        for moment in session.scalars(
            select(QuizAttempt.started_at)
            .where(
                QuizAttempt.learner_id == learner_id,
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
    pending = [(moment, reason) for moment, reason in waits if moment > now]
    if not pending:
        return None
    moment, reason = max(pending)
    return _seconds_until(moment, now), reason


def _seconds_until(moment: datetime, now: datetime) -> int:
    return max(1, int((moment - now).total_seconds() + 0.999))


def exam_status(session: Session, quiz: Quiz, learner_id: str, now: datetime) -> ExamStatus:
    window_start = now - timedelta(days=1)
    count = (
        session.scalar(
            select(func.count())
            .select_from(QuizAttempt)
            .where(
                QuizAttempt.learner_id == learner_id,
                QuizAttempt.quiz_id == quiz.id,
                QuizAttempt.started_at > window_start,
            )
        )
        or 0
    )
    passed = (
        session.scalar(
            select(func.count())
            .select_from(QuizAttempt)
            .where(QuizAttempt.learner_id == learner_id, QuizAttempt.quiz_id == quiz.id, QuizAttempt.passed.is_(True))
        )
        or 0
    )
    wait = _exam_wait_s(session, quiz, learner_id, now)
    return ExamStatus(
        attempts_in_window=int(count),
        attempts_per_day=quiz.attempts_per_day,
        next_start_at=now + timedelta(seconds=wait[0]) if wait else None,
        wait_reason=wait[1] if wait else None,
        passed=passed > 0,
    )


@dataclass(frozen=True, slots=True)
class _Loaded:
    """An attempt row with its quiz and drawn questions."""

    row: StoredAttempt
    quiz: Quiz
    questions: tuple[DrawnView, ...]

    @property
    def id(self) -> str:
        return self.row.id


def _load(connection: Connection, catalog: QuizCatalog, learner_id: str, attempt_id: str, lock: bool) -> _Loaded:
    row = store.load_attempt(connection, attempt_id, lock)
    quiz = catalog.get(row.quiz_id) if row is not None else None
    if row is None or quiz is None or not secrets.compare_digest(row.learner_id, learner_id):
        raise AttemptNotFoundError(attempt_id)
    return _Loaded(row, quiz, drawn_questions_from_json(row.questions_json, quiz))


def _view(connection: Connection, loaded: _Loaded) -> AttemptView:
    return attempt_view(loaded.row, loaded.quiz, loaded.questions, store.answers(connection, loaded.id))


def _close(connection: Connection, loaded: _Loaded, state: str, now: datetime) -> _Loaded:
    """The one finalisation: a conditional UPDATE that scores what is stored; returns the attempt as it is now."""
    result = connection.execute(_CLOSE, {"attempt_id": loaded.id, "new_state": state, "finished_at": now})
    if result.rowcount == 1:
        correct = connection.execute(_CORRECT_COUNT, {"attempt_id": loaded.id}).scalar_one()
        total = loaded.row.question_count
        connection.execute(
            _SCORE,
            {
                "attempt_id": loaded.id,
                "correct_count": correct,
                "score_percent": round(100 * correct / total) if total else 0,
                "passed": total > 0 and correct * 100 >= loaded.quiz.pass_percent * total,
            },
        )
    row = store.load_attempt(connection, loaded.id, lock=False)
    assert row is not None
    return _Loaded(row, loaded.quiz, loaded.questions)


def _expired(attempt: StoredAttempt, now: datetime) -> bool:
    return attempt.deadline_at is not None and now >= aware(attempt.deadline_at)


def get_attempt(session: Session, catalog: QuizCatalog, learner_id: str, attempt_id: str, now: datetime) -> AttemptView:
    """The attempt as its learner may see it; one past its time limit is closed here (with what is stored)."""
    connection = session.connection()
    loaded = _load(connection, catalog, learner_id, attempt_id, lock=False)
    if loaded.row.state in OPEN_STATES and _expired(loaded.row, now):
        loaded = _close(connection, _load(connection, catalog, learner_id, attempt_id, lock=True), "expired", now)
    view = _view(connection, loaded)
    session.commit()
    return view


def read_attempt(session: Session, catalog: QuizCatalog, learner_id: str, attempt_id: str) -> AttemptView:
    """The attempt as stored, without closing it if its time is up (a read that never waits on a writer)."""
    connection = session.connection()
    view = _view(connection, _load(connection, catalog, learner_id, attempt_id, lock=False))
    session.rollback()
    return view


def latest_attempt(session: Session, catalog: QuizCatalog, learner_id: str, quiz_id: str) -> str | None:
    """The id of the learner's most recent attempt at this quiz (open or not)."""
    return session.scalar(
        select(QuizAttempt.id)
        .where(QuizAttempt.learner_id == learner_id, QuizAttempt.quiz_id == quiz_id)
        .order_by(QuizAttempt.started_at.desc())
        .limit(1)
    )


def submit_answer(
    connection: Connection,
    catalog: QuizCatalog,
    learner_id: str,
    attempt_id: str,
    question_id: str,
    submission: Submission,
    client: str,
    now: datetime,
    policy: QuizPolicy,
) -> Answered:
    _limit(
        connection,
        [(f"answer:l:{learner_id}", policy.answer_per_learner), (f"answer:c:{client}", policy.answer_per_client)],
        now,
    )
    try:
        loaded = _load(connection, catalog, learner_id, attempt_id, lock=True)
    except AttemptNotFoundError:
        connection.commit()
        raise
    view = _view(connection, loaded)
    drawn = view.question(question_id)
    if drawn is None:
        connection.commit()
        raise InvalidSubmissionError("unknown_question")
    stored = view.answers.get(question_id)
    if stored is not None:
        connection.commit()
        raise AlreadyAnsweredError(stored, view)
    if loaded.row.state not in OPEN_STATES:
        connection.commit()
        raise AttemptClosedError(view)
    if _expired(loaded.row, now):
        closed = _view(connection, _close(connection, loaded, "expired", now))
        connection.commit()
        raise AttemptClosedError(closed, timed_out=True)

    try:
        grade, chosen, text, value = _grade(drawn.question.type, drawn, submission)
    except InvalidSubmissionError:
        connection.commit()
        raise
    chosen_list = list(chosen) if chosen is not None else None
    inserted = store.insert_answer(
        connection,
        store.NewAnswer(
            attempt_id=loaded.id,
            question_id=question_id,
            chosen=chosen_list,
            text=text,
            value=value,
            correct=grade.correct,
            diagnosis=grade.diagnosis,
            ratio=grade.ratio,
            answered_at=now,
        ),
    )
    if not inserted:  # lost a race that the row lock should have prevented: still, never grade twice
        stored_now = next(
            answer_view(drawn, row) for row in store.answers(connection, loaded.id) if row.question_id == question_id
        )
        connection.commit()
        raise AlreadyAnsweredError(stored_now, replace(view, answers={**view.answers, question_id: stored_now}))
    locked = answer_view(
        drawn, StoredAnswer(question_id, chosen_list, text, grade.correct, grade.diagnosis, grade.ratio)
    )
    if loaded.row.state == "created":
        store.mark_in_progress(connection, loaded.id)
    connection.commit()
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
            typed = (
                f"{submission.value} {submission.unit}"
                if submission.unit and not isinstance(submission.value, str)
                else str(submission.value)
            )
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
    connection = session.connection()
    loaded = _load(connection, catalog, learner_id, attempt_id, lock=True)
    closed = _close(connection, loaded, "expired" if _expired(loaded.row, now) else "finished", now)
    view = _view(connection, closed)
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


def course_progress(session: Session, catalog: QuizCatalog, learner_id: str, chapter_order: Sequence[str]) -> Progress:
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
