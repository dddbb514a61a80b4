"""QuizService on real SQLite and PostgreSQL databases: the attempt's life, what an answer reveals, progress,
the rate limits, and what happens when the database does not answer."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

import pytest
from sqlalchemy import func, select

import app.models  # noqa: F401  (every table)
from app import migrations
from app.content import load_course
from app.db import Base, Database, DatabaseUnavailableError
from app.learners.models import Learner
from app.quiz.bank import Quiz
from app.quiz.errors import (
    AlreadyAnsweredError,
    AttemptClosedError,
    AttemptNotFoundError,
    InvalidSubmissionError,
    QuizNotFoundError,
    RateLimitedError,
    UnknownQuestionError,
)
from app.quiz.models import QuizAnswer, QuizAttempt
from app.quiz.readmodels import AnswerView, AttemptView, DrawnView
from app.quiz.service import Answered, ChoiceSubmission, NumericSubmission, QuizPolicy, QuizService, Submission
from app.ratelimit import Limit
from tests.conftest import PostgresDatabases, require_postgres
from tests.unit.quiz.helpers import (
    CONTENT_DIR,
    T0,
    context,
    quiz_service,
    real_catalog,
    real_quiz,
    right_submission,
    right_value,
    run,
    wrong_submission,
)

LEARNER = "a" * 32
OTHER = "b" * 32


@cache
def chapters() -> list[str]:
    """The published chapters in course order (those with a quiz count towards progress)."""
    return [chapter.slug for chapter in load_course(CONTENT_DIR).published]


def counted_quizzes() -> list[Quiz]:
    """What the overall progress is the mean of: every chapter quiz and the exam."""
    return [quiz for quiz in real_catalog() if quiz.chapter in chapters() or quiz is real_catalog().exam]


def start(service: QuizService, quiz_id: str = "nvlink", learner: str = LEARNER, at: datetime = T0) -> AttemptView:
    return run(service.start(context(learner, at), service.quiz(quiz_id)))


def answer(
    service: QuizService,
    attempt_id: str,
    drawn: DrawnView,
    right: bool = True,
    learner: str = LEARNER,
    at: datetime = T0,
) -> Answered:
    submission = right_submission(drawn) if right else wrong_submission(drawn)
    return submit(service, attempt_id, drawn.id, submission, learner, at)


def submit(
    service: QuizService,
    attempt_id: str,
    question_id: str,
    submission: Submission,
    learner: str = LEARNER,
    at: datetime = T0,
) -> Answered:
    return run(service.answer(context(learner, at), attempt_id, question_id, submission))


def finish(service: QuizService, attempt_id: str, learner: str = LEARNER, at: datetime = T0) -> AttemptView:
    return run(service.finish(context(learner, at), attempt_id))


def read(service: QuizService, attempt_id: str, learner: str = LEARNER, at: datetime = T0) -> AttemptView:
    return run(service.attempt(context(learner, at), attempt_id))


def pass_quiz(service: QuizService, quiz_id: str, learner: str = LEARNER, at: datetime = T0) -> AttemptView:
    attempt = start(service, quiz_id, learner, at)
    for drawn in attempt.questions:
        answer(service, attempt.id, drawn, learner=learner, at=at)
    done = finish(service, attempt.id, learner, at)
    assert done.passed
    return done


def count(database: Database, table: type[Base]) -> int:
    with database.session() as session:
        return int(session.scalar(select(func.count()).select_from(table)) or 0)


def first_of_type(attempt: AttemptView, numeric: bool) -> DrawnView:
    return next(drawn for drawn in attempt.questions if (drawn.type == "numeric") == numeric)


def first_where(attempt: AttemptView, question_type: str, unit: str | None = None) -> DrawnView:
    return next(drawn for drawn in attempt.questions if drawn.type == question_type and drawn.unit == unit)


# --- the life of an attempt ----------------------------------------------------------------------------------


def test_an_attempt_runs_created_in_progress_finished(database: Database) -> None:
    service = quiz_service(database)
    attempt = start(service)
    assert attempt.state == "created"
    assert len(attempt.questions) == real_quiz("nvlink").draw
    first, second, third, *_ = attempt.questions
    assert answer(service, attempt.id, first).answer.correct
    wrong = answer(service, attempt.id, second, right=False)
    assert not wrong.answer.correct
    assert (wrong.attempt.state, wrong.attempt.answered_count) == ("in_progress", 2)
    with database.session() as session:
        assert session.scalar(select(QuizAttempt.state).where(QuizAttempt.id == attempt.id)) == "in_progress"
    done = finish(service, attempt.id)
    assert (done.state, done.correct_count) == ("finished", 1)
    assert done.score_percent == round(100 / len(attempt.questions))
    assert done.passed is False
    again = finish(service, attempt.id, at=T0 + timedelta(minutes=5))
    assert (again.finished_at, again.score_percent) == (done.finished_at, done.score_percent)  # finishing happens once
    with pytest.raises(AttemptClosedError) as raised:
        answer(service, attempt.id, third)
    assert raised.value.code == "closed"
    assert count(database, QuizAnswer) == 2


def test_all_right_passes(database: Database) -> None:
    service = quiz_service(database)
    done = pass_quiz(service, "nvlink")
    assert (done.score_percent, done.passed) == (100, True)
    assert done.sections_to_review() == ()
    progress = run(service.progress(context(LEARNER), chapters()))
    assert progress.best_scores == {"nvlink": 100}


def test_a_locked_answer_never_changes(database: Database) -> None:
    service = quiz_service(database)
    attempt = start(service)
    drawn = first_of_type(attempt, numeric=False)
    first = answer(service, attempt.id, drawn, right=False).answer
    with pytest.raises(AlreadyAnsweredError) as raised:
        answer(service, attempt.id, drawn, right=True)
    assert raised.value.answer.correct is False
    assert raised.value.answer.chosen == first.chosen
    assert raised.value.attempt.answers[drawn.id].chosen == first.chosen
    numeric = first_of_type(attempt, numeric=True)
    typed = submit(service, attempt.id, numeric.id, NumericSubmission(f"{right_value(numeric)} {numeric.unit}"))
    with pytest.raises(AlreadyAnsweredError) as raised:
        answer(service, attempt.id, numeric, right=False)
    assert (raised.value.answer.correct, raised.value.answer.text) == (True, typed.answer.text)
    assert count(database, QuizAnswer) == 2


def test_another_learner_can_neither_see_nor_answer_nor_finish_an_attempt(database: Database) -> None:
    service = quiz_service(database)
    attempt = start(service)
    with pytest.raises(AttemptNotFoundError):
        read(service, attempt.id, learner=OTHER)
    with pytest.raises(AttemptNotFoundError):
        answer(service, attempt.id, attempt.questions[0], learner=OTHER)
    with pytest.raises(AttemptNotFoundError):
        finish(service, attempt.id, learner=OTHER)
    with pytest.raises(AttemptNotFoundError):
        read(service, "no-such-attempt")
    assert read(service, attempt.id).state == "created"
    assert count(database, QuizAnswer) == 0


def test_unknown_quizzes_and_questions_are_refused(database: Database) -> None:
    service = quiz_service(database)
    with pytest.raises(QuizNotFoundError):
        service.quiz("no-such-quiz")
    with pytest.raises(QuizNotFoundError):
        service.chapter_quiz("exam")  # the exam is no chapter's quiz
    assert service.chapter_quiz("nvlink") is service.quiz("nvlink")
    assert service.exam().is_exam
    attempt = start(service)
    with pytest.raises(UnknownQuestionError):
        submit(service, attempt.id, "no-such-question", ChoiceSubmission(("x",)))
    exam_only = next(q.id for q in real_quiz("exam").questions)
    with pytest.raises(UnknownQuestionError):
        submit(service, attempt.id, exam_only, ChoiceSubmission(("x",)))


def test_bad_submissions_store_nothing(database: Database) -> None:
    service = quiz_service(database)
    attempt = start(service)
    choice = first_where(attempt, "single")
    numeric = first_where(attempt, "numeric", unit="ms")
    cases: list[tuple[DrawnView, Submission, str]] = [
        (choice, ChoiceSubmission(("not-a-token",)), "unknown_option"),
        (choice, ChoiceSubmission(()), "no_choice"),
        (choice, ChoiceSubmission(tuple(s.token for s in choice.options)), "one_choice"),
        (choice, NumericSubmission("3 ms"), "expected_tokens"),
        (numeric, ChoiceSubmission(("x",)), "expected_value"),
        (numeric, NumericSubmission("fast"), "not_a_number"),
        (numeric, NumericSubmission("3 kg"), "unknown_unit"),
        (numeric, NumericSubmission("450 GB/s"), "wrong_dimension"),
        (numeric, NumericSubmission(float("nan"), "ms"), "not_a_number"),
        # Beyond app.quiz.units.MAGNITUDES: refused, so no ratio of 1e30 is ever stored to be shown.
        (numeric, NumericSubmission(1e30, "ms"), "out_of_range"),
        (numeric, NumericSubmission("1e30 ms"), "out_of_range"),
        (numeric, NumericSubmission(1e-20, "s"), "out_of_range"),
    ]
    for drawn, bad, code in cases:
        with pytest.raises(InvalidSubmissionError) as raised:
            submit(service, attempt.id, drawn.id, bad)
        assert (raised.value.code, raised.value.question_id) == (code, drawn.id), bad
        assert raised.value.attempt.answers == {}
    assert count(database, QuizAnswer) == 0
    assert read(service, attempt.id).state == "created"


def test_the_exam_time_limit_closes_the_attempt_with_what_was_stored(database: Database) -> None:
    service = quiz_service(database)
    attempt = start(service, "exam")
    limit = timedelta(minutes=40)
    assert attempt.deadline_at == T0 + limit
    answer(service, attempt.id, attempt.questions[0], at=T0 + limit - timedelta(minutes=1))
    with pytest.raises(AttemptClosedError) as raised:
        answer(service, attempt.id, attempt.questions[1], at=T0 + limit + timedelta(minutes=1))
    assert raised.value.code == "timed_out"
    closed = raised.value.attempt
    assert (closed.state, closed.correct_count, closed.score_percent) == ("expired", 1, 10)
    assert closed.finished_at == T0 + limit + timedelta(minutes=1)
    with pytest.raises(AttemptClosedError) as raised:  # from now on, just closed
        answer(service, attempt.id, attempt.questions[2], at=T0 + limit + timedelta(minutes=2))
    assert raised.value.code == "closed"
    late = finish(service, attempt.id, at=T0 + limit + timedelta(minutes=10))
    assert (late.state, late.finished_at) == ("expired", T0 + limit + timedelta(minutes=1))
    assert count(database, QuizAnswer) == 1


def test_reading_an_attempt_past_its_time_limit_closes_it(database: Database) -> None:
    service = quiz_service(database)
    attempt = start(service, "exam")
    answer(service, attempt.id, attempt.questions[0], at=T0 + timedelta(minutes=1))
    within = read(service, attempt.id, at=T0 + timedelta(minutes=2))
    assert (within.state, within.answered_count, within.is_open) == ("in_progress", 1, True)
    later = read(service, attempt.id, at=T0 + timedelta(hours=1))
    assert (later.state, later.correct_count, later.finished_at) == ("expired", 1, T0 + timedelta(hours=1))
    with database.session() as session:
        assert session.scalar(select(QuizAttempt.state).where(QuizAttempt.id == attempt.id)) == "expired"


def test_starting_over_closes_the_open_attempt(database: Database) -> None:
    service = quiz_service(database)
    first = start(service)
    answer(service, first.id, first.questions[0])
    second = start(service, at=T0 + timedelta(minutes=1))
    closed = read(service, first.id)
    assert (closed.state, closed.correct_count) == ("expired", 1)
    assert second.state == "created"
    landing = run(service.landing(context(LEARNER, T0 + timedelta(minutes=2)), service.quiz("nvlink")))
    assert landing.latest is not None
    assert landing.latest.id == second.id
    assert landing.best_percent == closed.score_percent
    assert landing.exam is None


def test_a_new_learner_is_created_on_the_first_start_only(database: Database) -> None:
    service = quiz_service(database)
    landing = run(service.landing(context(LEARNER, returning=False), service.quiz("nvlink")))
    assert (landing.latest, landing.best_percent) == (None, None)
    assert count(database, Learner) == 0  # a page view writes no learner
    start(service)
    start(service, at=T0 + timedelta(seconds=1))
    assert count(database, Learner) == 1


# --- what an answer reveals ----------------------------------------------------------------------------------


def assert_hidden(answer: AnswerView) -> None:
    """An exam answer while the attempt runs, or before the learner has passed the exam: no verdict, no slip, no
    right option or value, no explanation."""
    assert answer.reveal is False
    assert answer.verdict is None
    assert answer.correct_tokens is None
    assert answer.correct_value is None
    assert answer.explanation("en") is None
    assert answer.explanation("ko") is None
    assert not any(answer.marks_right(shown) for shown in answer.drawn.options)
    assert answer.feedback == ()
    assert answer.misconceptions == ()


def test_exam_answers_reveal_nothing_until_the_learner_passed_the_exam(database: Database) -> None:
    service = quiz_service(database)
    attempt = start(service, "exam")
    assert attempt.reveal is False
    numeric, choice = first_of_type(attempt, numeric=True), first_of_type(attempt, numeric=False)
    hidden_numeric = answer(service, attempt.id, numeric, right=False).answer
    hidden_choice = answer(service, attempt.id, choice, right=False).answer
    for hidden in (hidden_numeric, hidden_choice):
        assert hidden.correct is False  # graded and stored, but not said
        assert_hidden(hidden)
    chosen = next(shown for shown in choice.options if shown.token in hidden_choice.chosen_tokens)
    assert chosen.option.feedback is not None  # there was a text to hide
    with pytest.raises(AlreadyAnsweredError) as raised:  # a replay reveals no more than the answer did
        answer(service, attempt.id, choice)
    assert_hidden(raised.value.answer)
    done = finish(service, attempt.id)
    assert done.passed is False
    assert done.misconceptions_shown() == ()
    assert done.partly_right() == ()
    for item in done.review():
        assert_hidden(item)
    wrong_chapters = {numeric.question.chapter, choice.question.chapter}
    assert wrong_chapters <= {group.chapter for group in done.sections_to_review()}

    passing = start(service, "exam", at=T0 + timedelta(minutes=11))
    for drawn in passing.questions:  # a learner who knows still hears nothing while the attempt runs
        assert_hidden(answer(service, passing.id, drawn, at=T0 + timedelta(minutes=12)).answer)
    assert finish(service, passing.id, at=T0 + timedelta(minutes=13)).passed is True
    revealed = read(service, attempt.id, at=T0 + timedelta(minutes=14))
    assert revealed.reveal is True
    numeric_answer, choice_answer = revealed.answers[numeric.id], revealed.answers[choice.id]
    assert numeric_answer.verdict is False
    assert numeric_answer.correct_value == pytest.approx(right_value(numeric))
    assert [item.ratio for item in numeric_answer.feedback] == [pytest.approx(3.0)]
    assert choice_answer.correct_tokens == tuple(s.token for s in choice.options if s.option.correct)
    assert [item.text for item in choice_answer.feedback] == [chosen.option.feedback]
    for item in (numeric_answer, choice_answer):
        explanation = item.explanation("en")
        assert explanation
        assert "{" not in explanation

    again = start(service, "exam", at=T0 + timedelta(minutes=25))  # passed, but this attempt is running
    assert_hidden(answer(service, again.id, again.questions[0], at=T0 + timedelta(minutes=26)).answer)
    stranger = start(service, "exam", learner=OTHER, at=T0 + timedelta(minutes=13))  # has not passed it
    assert_hidden(answer(service, stranger.id, stranger.questions[0], learner=OTHER).answer)


def test_practice_quizzes_reveal_at_once(database: Database) -> None:
    service = quiz_service(database)
    attempt = start(service)
    numeric, choice = first_of_type(attempt, numeric=True), first_of_type(attempt, numeric=False)
    wrong_numeric = answer(service, attempt.id, numeric, right=False).answer
    wrong_choice = answer(service, attempt.id, choice, right=False).answer
    assert wrong_numeric.correct_value == pytest.approx(right_value(numeric))
    assert wrong_numeric.feedback[0].ratio == pytest.approx(3.0)
    assert wrong_choice.correct_tokens
    assert wrong_choice.feedback[0].text is not None
    assert wrong_choice.explanation("ko")


def test_sections_to_review_are_the_wrong_and_unanswered_ones_by_chapter_once(database: Database) -> None:
    service = quiz_service(database)
    attempt = start(service)
    first, second, *rest = attempt.questions
    answer(service, attempt.id, first)
    answer(service, attempt.id, second, right=False)
    done = finish(service, attempt.id)
    expected: dict[str, set[str]] = {}
    for drawn in (second, *rest):
        expected.setdefault(drawn.question.chapter, set()).add(drawn.question.section)
    groups = done.sections_to_review()
    assert {group.chapter: set(group.sections) for group in groups} == expected
    for group in groups:  # each section once, in an order that says nothing of the questions' order
        assert list(group.sections) == sorted(set(group.sections))
    reviewed = done.review()
    assert [item.answered for item in reviewed] == [True, True] + [False] * len(rest)
    assert [item.correct for item in reviewed] == [True] + [False] * (len(rest) + 1)


# --- progress --------------------------------------------------------------------------------------------------


def test_course_progress_is_the_mean_best_score_of_the_chapter_quizzes_and_the_exam(database: Database) -> None:
    service = quiz_service(database)
    assert run(service.progress(context(LEARNER), chapters())) == run(
        service.progress(context(LEARNER, returning=False), chapters())
    )
    empty = run(service.progress(context(LEARNER), chapters()))
    assert (empty.best_scores, empty.overall_percent, empty.started, empty.available) == ({}, 0, False, True)
    attempt = start(service)
    for drawn in attempt.questions[:2]:
        answer(service, attempt.id, drawn)
    first = finish(service, attempt.id)
    second = start(service, at=T0 + timedelta(minutes=1))
    finish(service, second.id, at=T0 + timedelta(minutes=1))  # a worse attempt does not lower the best
    start(service, at=T0 + timedelta(minutes=2))  # nor does an open one count
    progress = run(service.progress(context(LEARNER), chapters()))
    assert first.score_percent is not None
    assert 0 < first.score_percent < real_quiz("nvlink").pass_percent
    assert progress.best_scores == {"nvlink": first.score_percent}
    assert progress.overall_percent == round(first.score_percent / len(counted_quizzes()))
    first_with_a_quiz = next(slug for slug in chapters() if real_catalog().chapter_quiz(slug) is not None)
    assert (progress.continue_chapter, progress.ready_for_exam) == (first_with_a_quiz, False)
    assert not progress.exam_passed


def test_progress_continues_at_the_first_chapter_not_passed_and_counts_the_exam(database: Database) -> None:
    service = quiz_service(database)
    with_quiz = [slug for slug in chapters() if real_catalog().chapter_quiz(slug) is not None]
    assert len(with_quiz) >= 2
    for number, slug in enumerate(with_quiz[:-1]):
        pass_quiz(service, slug, at=T0 + timedelta(minutes=number))
        progress = run(service.progress(context(LEARNER), chapters()))
        assert progress.continue_chapter == with_quiz[number + 1]
        assert not progress.ready_for_exam
    pass_quiz(service, with_quiz[-1], at=T0 + timedelta(hours=1))
    progress = run(service.progress(context(LEARNER), chapters()))
    assert progress.started
    assert (progress.continue_chapter, progress.ready_for_exam, progress.exam_passed) == (None, True, False)
    counted = len(counted_quizzes())
    assert progress.overall_percent == round(100 * (counted - 1) / counted)  # all but the exam at 100 %
    pass_quiz(service, "exam", at=T0 + timedelta(hours=2))
    progress = run(service.progress(context(LEARNER, T0 + timedelta(hours=3)), chapters()))
    assert progress.best_scores == {quiz.id: 100 for quiz in counted_quizzes()}
    assert (progress.overall_percent, progress.exam_passed, progress.ready_for_exam) == (100, True, True)
    assert run(service.progress(context(OTHER), chapters())).best_scores == {}  # per learner


def test_progress_lists_the_newest_unfinished_attempt_of_each_quiz_the_exam_first(database: Database) -> None:
    service = quiz_service(database)
    start(service, "nvlink")  # abandoned by the next start of the same quiz
    practice = start(service, "nvlink", at=T0 + timedelta(minutes=1))
    answer(service, practice.id, practice.questions[0], at=T0 + timedelta(minutes=1))
    exam = start(service, "exam", at=T0 + timedelta(minutes=2))
    closed = start(service, "nvswitch", at=T0 + timedelta(minutes=3))
    finish(service, closed.id, at=T0 + timedelta(minutes=3))
    progress = run(service.progress(context(LEARNER, T0 + timedelta(minutes=4)), chapters()))
    assert [(item.quiz_id, item.attempt_id, item.answered) for item in progress.open_attempts] == [
        ("exam", exam.id, 0),
        ("nvlink", practice.id, 1),
    ]
    assert progress.open_attempts[0].deadline_at == exam.deadline_at
    assert progress.open_attempts[1].total == len(practice.questions)
    assert progress.open_attempts[1].deadline_at is None
    assert progress.open_attempt("nvswitch") is None
    limit = real_quiz("exam").time_limit_s
    assert limit is not None
    after_the_clock = run(service.progress(context(LEARNER, T0 + timedelta(minutes=2, seconds=limit)), chapters()))
    assert [item.quiz_id for item in after_the_clock.open_attempts] == ["nvlink"]  # the exam's time is up
    assert run(service.progress(context(OTHER), chapters())).open_attempts == ()


def gone_sqlite_database(tmp_path: Path) -> Database:
    """A SQLite database whose directory was removed (the volume went away)."""
    directory = tmp_path / "gone"
    directory.mkdir()
    database = Database.from_url(f"sqlite:///{directory / 'course.sqlite3'}")
    migrations.upgrade(database)
    database.dispose()
    shutil.rmtree(directory)
    return database


def test_progress_is_unavailable_rather_than_an_error_when_sqlite_is_gone(tmp_path: Path) -> None:
    database = gone_sqlite_database(tmp_path)
    try:
        service = quiz_service(database)
        progress = run(service.progress(context(LEARNER), chapters()))
        assert (progress.available, progress.best_scores, progress.overall_percent) == (False, {}, 0)
        assert run(service.progress(context(LEARNER, returning=False), chapters())).available  # never asked
        with pytest.raises(DatabaseUnavailableError):
            start(service)
    finally:
        database.dispose()


@pytest.fixture
def postgres_databases(postgres_server: str | None) -> Iterator[PostgresDatabases]:
    """Databases of the test's own, which it may drop."""
    databases = PostgresDatabases(require_postgres(postgres_server))
    try:
        yield databases
    finally:
        databases.drop_all()


def test_a_dropped_postgresql_database_is_unavailable(postgres_databases: PostgresDatabases) -> None:
    database = Database.from_url(postgres_databases.create())
    try:
        migrations.upgrade(database)
        service = quiz_service(database)
        attempt = start(service)  # the pool now holds a live connection to the database
        postgres_databases.drop(str(database.engine.url.database))
        progress = run(service.progress(context(LEARNER), chapters()))
        assert (progress.available, progress.best_scores) == (False, {})
        with pytest.raises(DatabaseUnavailableError):
            start(service)
        with pytest.raises(DatabaseUnavailableError):
            answer(service, attempt.id, attempt.questions[0])
        with pytest.raises(DatabaseUnavailableError):
            database.ping()
    finally:
        database.dispose()


# --- rate limits ------------------------------------------------------------------------------------------------


def test_exam_attempts_are_limited_per_day_and_spaced(database: Database) -> None:
    service = quiz_service(database)
    first = start(service, "exam", at=T0)
    with pytest.raises(RateLimitedError) as raised:
        start(service, "exam", at=T0 + timedelta(minutes=5))
    assert (raised.value.reason, raised.value.retry_after_s) == ("exam_gap", 300)
    assert raised.value.quiz is service.exam()
    refused = raised.value.landing  # what the landing page shows, carried by the error
    assert refused is not None
    assert refused.latest is not None
    assert refused.exam is not None
    assert (refused.quiz, refused.latest.id) == (service.exam(), first.id)
    assert (refused.exam.wait_reason, refused.exam.attempts_in_window) == (
        "exam_gap",
        1,
    )  # the refused start: not counted
    start(service, "exam", at=T0 + timedelta(minutes=10))
    start(service, "exam", at=T0 + timedelta(minutes=20))
    with pytest.raises(RateLimitedError) as raised:
        start(service, "exam", at=T0 + timedelta(minutes=40))
    assert raised.value.reason == "exam_daily"
    assert raised.value.retry_after_s == int(timedelta(hours=23, minutes=20).total_seconds())
    landing = run(service.landing(context(LEARNER, T0 + timedelta(minutes=40)), service.exam()))
    assert landing.exam is not None
    assert (landing.exam.attempts_in_window, landing.exam.attempts_per_day) == (3, 3)
    assert landing.exam.next_start_at == T0 + timedelta(days=1)
    start(service, "exam", at=T0 + timedelta(days=1, minutes=1))
    landing = run(service.landing(context(LEARNER, T0 + timedelta(days=1, minutes=2)), service.exam()))
    assert landing.exam is not None
    assert (landing.exam.next_start_at, landing.exam.wait_reason) == (T0 + timedelta(days=1, minutes=11), "exam_gap")
    start(service, "nvlink", at=T0 + timedelta(days=1, minutes=2))  # the practice quiz is not limited so


def assert_wait_about(retry_after_s: int, exact: timedelta, window: timedelta) -> None:
    """The wait a sliding window gives, which may err on the safe side by a tenth of the window (app.ratelimit)."""
    assert exact.total_seconds() <= retry_after_s <= (exact + window / 10).total_seconds() + 1


def test_exam_starts_are_limited_per_client_address_per_day_across_fresh_learners(database: Database) -> None:
    service = QuizService(database, real_catalog(), QuizPolicy())  # the production limits
    per_day = service.policy.exam_start_per_client
    assert (per_day.requests, per_day.window_s) == (12, 86_400)
    for number in range(per_day.requests):  # a new cookie for every start: the address is what is counted
        start(service, "exam", learner=f"{number:032x}", at=T0 + timedelta(minutes=number))
    waits = []
    for later in (timedelta(minutes=30), timedelta(hours=5)):
        with pytest.raises(RateLimitedError) as raised:
            start(service, "exam", learner="f" * 32, at=T0 + later)
        assert raised.value.reason == "requests"
        assert_wait_about(raised.value.retry_after_s, timedelta(days=1) - later, timedelta(days=1))
        waits.append(later + timedelta(seconds=raised.value.retry_after_s))  # when the address is free again
    start(service, "nvlink", learner="f" * 32, at=T0 + timedelta(hours=5))  # practice is still open
    run(service.start(context("e" * 32, T0 + timedelta(hours=5), client="198.51.100.7"), service.exam()))
    start(service, "exam", learner="f" * 32, at=T0 + min(waits))  # the first start has left the window


def test_start_limits_are_counted_in_the_database_over_a_sliding_window(database: Database) -> None:
    tight = QuizPolicy(start_per_learner=Limit(2, 60))
    start(quiz_service(database, tight), at=T0)
    second = start(quiz_service(database, tight), at=T0 + timedelta(seconds=1))  # another service: shared count
    with pytest.raises(RateLimitedError) as raised:
        start(quiz_service(database, tight), at=T0 + timedelta(seconds=2))
    assert raised.value.reason == "requests"
    refused = raised.value.landing
    assert refused is not None
    assert refused.latest is not None
    assert refused.latest.id == second.id  # the landing as it is: the refused start drew nothing
    assert_wait_about(raised.value.retry_after_s, timedelta(seconds=58), timedelta(seconds=60))
    free = T0 + timedelta(seconds=2 + raised.value.retry_after_s)
    with pytest.raises(RateLimitedError):
        start(quiz_service(database, tight), at=free - timedelta(seconds=1))
    start(quiz_service(database, tight), learner=OTHER, at=free - timedelta(seconds=1))  # per learner
    start(quiz_service(database, tight), at=free)  # the first start has left the window


def test_answers_are_limited_and_a_refused_answer_stores_nothing(database: Database) -> None:
    service = quiz_service(database, QuizPolicy(answer_per_learner=Limit(1, 60)))
    attempt = start(service)
    first, second, *_ = attempt.questions
    answer(service, attempt.id, first)
    with pytest.raises(RateLimitedError) as raised:
        answer(service, attempt.id, second, at=T0 + timedelta(seconds=20))
    assert_wait_about(raised.value.retry_after_s, timedelta(seconds=40), timedelta(seconds=60))
    assert raised.value.question_id == second.id
    assert raised.value.attempt is not None
    assert set(raised.value.attempt.answers) == {first.id}
    assert count(database, QuizAnswer) == 1
    answer(service, attempt.id, second, at=T0 + timedelta(seconds=20 + raised.value.retry_after_s))
    assert count(database, QuizAnswer) == 2
