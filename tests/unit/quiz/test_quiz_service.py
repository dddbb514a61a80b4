"""The attempt state machine on real SQLite and PostgreSQL databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

import app.models  # noqa: F401  (every table)
from app.db import Database
from app.quiz import service
from app.quiz.errors import (
    AlreadyAnsweredError,
    AttemptClosedError,
    AttemptNotFoundError,
    InvalidSubmissionError,
    QuizNotFoundError,
    RateLimitedError,
)
from app.quiz.models import QuizAnswer, QuizAttempt
from app.quiz.ratelimit import Limit
from app.quiz.service import ChoiceSubmission, NumericSubmission, QuizPolicy
from app.quiz.views import AttemptView, DrawnView
from tests.unit.quiz.helpers import real_catalog, right_answer, wrong_answer

LEARNER = "a" * 32
OTHER = "b" * 32
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
POLICY = QuizPolicy()


def start(
    database: Database, quiz_id: str = "nvlink", learner: str = LEARNER, at: datetime = T0, policy: QuizPolicy = POLICY
) -> AttemptView:
    with database.write_session() as session:
        return service.start_attempt(session, real_catalog(), learner, "en", quiz_id, "127.0.0.1", at, policy)


def submission(body: dict[str, object]) -> service.Submission:
    if "tokens" in body:
        return ChoiceSubmission(tuple(body["tokens"]))  # type: ignore[arg-type]
    return NumericSubmission(body["value"], body["unit"])  # type: ignore[arg-type]


def answer(
    database: Database, attempt_id: str, drawn: DrawnView, right: bool = True, learner: str = LEARNER, at: datetime = T0
) -> service.Answered:
    body = right_answer(drawn) if right else wrong_answer(drawn)
    with database.write_connection() as connection:
        return service.submit_answer(
            connection, real_catalog(), learner, attempt_id, drawn.id, submission(body), "127.0.0.1", at, POLICY
        )


def finish(database: Database, attempt_id: str, at: datetime = T0) -> AttemptView:
    with database.write_session() as session:
        return service.finish_attempt(session, real_catalog(), LEARNER, attempt_id, at)


def test_an_attempt_runs_created_in_progress_finished(database: Database) -> None:
    attempt = start(database)
    assert attempt.state == "created"
    assert len(attempt.questions) == len(real_catalog().get("nvlink").questions)  # type: ignore[union-attr]
    first, second, *_ = attempt.questions
    assert answer(database, attempt.id, first).answer.correct
    assert not answer(database, attempt.id, second, right=False).answer.correct
    with database.read_session() as session:
        assert session.get(QuizAttempt, attempt.id).state == "in_progress"  # type: ignore[union-attr]
    done = finish(database, attempt.id)
    assert (done.state, done.correct_count) == ("finished", 1)
    assert done.score_percent == round(100 / len(attempt.questions))
    assert done.passed is False
    again = finish(database, attempt.id, at=T0 + timedelta(minutes=5))
    assert again.finished_at == done.finished_at  # finishing happens once
    with pytest.raises(AttemptClosedError):
        answer(database, attempt.id, attempt.questions[2])


def test_all_right_passes(database: Database) -> None:
    attempt = start(database)
    for drawn in attempt.questions:
        answer(database, attempt.id, drawn)
    done = finish(database, attempt.id)
    assert (done.score_percent, done.passed) == (100, True)
    with database.read_session() as session:
        assert service.best_scores(session, LEARNER) == {"nvlink": 100}


def test_a_locked_answer_never_changes(database: Database) -> None:
    attempt = start(database)
    drawn = attempt.questions[0]
    first = answer(database, attempt.id, drawn, right=False).answer
    with pytest.raises(AlreadyAnsweredError) as raised:
        answer(database, attempt.id, drawn, right=True)
    assert raised.value.answer.correct is False
    assert raised.value.answer.chosen == first.chosen
    with database.read_session() as session:
        count = session.scalar(select(func.count()).select_from(QuizAnswer))
    assert count == 1


def test_another_learner_cannot_see_or_answer_an_attempt(database: Database) -> None:
    attempt = start(database)
    with database.write_session() as session, pytest.raises(AttemptNotFoundError):
        service.get_attempt(session, real_catalog(), OTHER, attempt.id, T0)
    with pytest.raises(AttemptNotFoundError):
        answer(database, attempt.id, attempt.questions[0], learner=OTHER)
    with pytest.raises(QuizNotFoundError):
        start(database, quiz_id="no-such-quiz")


def test_bad_submissions_store_nothing(database: Database) -> None:
    attempt = start(database)
    choice = next(d for d in attempt.questions if d.type != "numeric")
    numeric = next(d for d in attempt.questions if d.type == "numeric")
    cases: list[tuple[DrawnView, service.Submission, str]] = [
        (choice, ChoiceSubmission(("not-a-token",)), "unknown_option"),
        (choice, ChoiceSubmission(()), "no_choice"),
        (choice, NumericSubmission("3 ms"), "expected_tokens"),
        (numeric, ChoiceSubmission(("x",)), "expected_value"),
        (numeric, NumericSubmission("fast"), "not_a_number"),
        (numeric, NumericSubmission("3 kg"), "unknown_unit"),
    ]
    for drawn, bad, code in cases:
        with database.write_connection() as connection, pytest.raises(InvalidSubmissionError) as raised:
            service.submit_answer(connection, real_catalog(), LEARNER, attempt.id, drawn.id, bad, "ip", T0, POLICY)
        assert raised.value.code == code
    with database.read_session() as session:
        assert session.scalar(select(func.count()).select_from(QuizAnswer)) == 0


def test_the_exam_time_limit_closes_the_attempt_with_what_was_stored(database: Database) -> None:
    attempt = start(database, "exam")
    assert attempt.deadline_at == T0 + timedelta(minutes=30)
    answer(database, attempt.id, attempt.questions[0], at=T0 + timedelta(minutes=29))
    with pytest.raises(AttemptClosedError) as raised:
        answer(database, attempt.id, attempt.questions[1], at=T0 + timedelta(minutes=31))
    assert raised.value.timed_out
    closed = raised.value.attempt
    assert (closed.state, closed.correct_count, closed.score_percent) == ("expired", 1, 10)
    assert finish(database, attempt.id, at=T0 + timedelta(minutes=40)).state == "expired"


def test_reading_an_attempt_never_writes_even_past_its_time_limit(database: Database) -> None:
    attempt = start(database, "exam")
    answer(database, attempt.id, attempt.questions[0], at=T0 + timedelta(minutes=1))
    with database.read_session() as session:
        read = service.read_attempt(session, real_catalog(), LEARNER, attempt.id)
        with pytest.raises(AttemptNotFoundError):
            service.read_attempt(session, real_catalog(), OTHER, attempt.id)
    assert (read.state, read.answered_count) == ("in_progress", 1)
    with database.read_session() as session:  # still open in the database: only get_attempt closes it
        assert session.scalar(select(QuizAttempt.state).where(QuizAttempt.id == attempt.id)) == "in_progress"
    with database.write_session() as session:
        later = service.get_attempt(session, real_catalog(), LEARNER, attempt.id, T0 + timedelta(hours=1))
    assert later.state == "expired"


def test_exam_attempts_are_limited_per_day_and_spaced(database: Database) -> None:
    start(database, "exam", at=T0)
    with pytest.raises(RateLimitedError) as raised:
        start(database, "exam", at=T0 + timedelta(minutes=5))
    assert (raised.value.reason, raised.value.retry_after_s) == ("exam_gap", 300)
    start(database, "exam", at=T0 + timedelta(minutes=10))
    start(database, "exam", at=T0 + timedelta(minutes=20))
    with pytest.raises(RateLimitedError) as raised:
        start(database, "exam", at=T0 + timedelta(minutes=40))
    assert raised.value.reason == "exam_daily"
    assert raised.value.retry_after_s == int(timedelta(hours=23, minutes=20).total_seconds())
    start(database, "exam", at=T0 + timedelta(days=1, minutes=1))
    with database.read_session() as session:
        status = service.exam_status(session, real_catalog().exam, LEARNER, T0 + timedelta(days=1, minutes=2))  # type: ignore[arg-type]
    assert status.next_start_at == T0 + timedelta(days=1, minutes=11)


def test_starting_over_closes_the_open_attempt(database: Database) -> None:
    first = start(database)
    answer(database, first.id, first.questions[0])
    second = start(database)
    with database.write_session() as session:
        closed = service.get_attempt(session, real_catalog(), LEARNER, first.id, T0)
    assert closed.state == "expired"
    assert closed.correct_count == 1
    assert second.state == "created"


def test_rate_limits_are_counted_in_the_database(database: Database) -> None:
    tight = QuizPolicy(start_per_learner=Limit(2, 60))
    start(database, policy=tight, at=T0)
    start(database, policy=tight, at=T0 + timedelta(seconds=1))
    with pytest.raises(RateLimitedError) as raised:
        start(database, policy=tight, at=T0 + timedelta(seconds=2))
    assert raised.value.retry_after_s == 58
    start(database, policy=tight, at=T0 + timedelta(seconds=61))  # a new window


def test_course_progress_is_the_mean_best_score_of_the_chapter_quizzes(database: Database) -> None:
    with database.read_session() as session:
        assert service.course_progress(session, real_catalog(), LEARNER, ["nvlink"]) == service.Progress({}, 0)
    attempt = start(database)
    for drawn in attempt.questions[:2]:
        answer(database, attempt.id, drawn, right=True)
    first = finish(database, attempt.id)
    second = start(database, at=T0 + timedelta(minutes=1))
    finish(database, second.id, at=T0 + timedelta(minutes=1))  # a worse attempt does not lower the best
    chapter_quizzes = [quiz for quiz in real_catalog() if not quiz.is_exam]
    with database.read_session() as session:
        progress = service.course_progress(session, real_catalog(), LEARNER, ["nvlink"])
    assert first.score_percent is not None
    assert 0 < first.score_percent < real_catalog().chapter_quiz("nvlink").pass_percent  # type: ignore[union-attr]
    assert progress.best_scores == {"nvlink": first.score_percent}
    assert progress.overall_percent == round(first.score_percent / len(chapter_quizzes))
    assert (progress.continue_chapter, progress.ready_for_exam) == ("nvlink", False)


def test_passing_every_chapter_quiz_points_to_the_exam(database: Database) -> None:
    attempt = start(database)
    for drawn in attempt.questions:
        answer(database, attempt.id, drawn)
    finish(database, attempt.id)
    with database.read_session() as session:
        progress = service.course_progress(session, real_catalog(), LEARNER, ["nvlink"])
    assert progress.started
    assert (progress.continue_chapter, progress.ready_for_exam) == (None, True)
