"""A Hypothesis state machine over start / answer / replay / finish / expire, against a real database.

Invariants: the score stays within bounds and matches the locked answers, a locked answer never changes, and
an attempt is finalised once (its state and finishing time never change afterwards).
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from sqlalchemy import select

import app.models  # noqa: F401  (every table)
from app.db import Database
from app.quiz import service
from app.quiz.errors import AlreadyAnsweredError, AttemptClosedError, InvalidSubmissionError
from app.quiz.models import QuizAnswer, QuizAttempt
from app.quiz.ratelimit import Limit
from app.quiz.service import ChoiceSubmission, NumericSubmission, QuizPolicy
from tests.unit.quiz.helpers import real_catalog, right_answer, wrong_answer

GENEROUS = QuizPolicy(*(Limit(10_000, 60) for _ in range(4)))
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def make_machine(database: Database) -> type[RuleBasedStateMachine]:
    catalog = real_catalog()

    class Attempts(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.learner = secrets.token_hex(16)
            self.now = T0
            with database.write_session() as session:
                self.attempt = service.start_attempt(
                    session, catalog, self.learner, "en", "exam", "test", self.now, GENEROUS
                )
            self.locked: dict[str, tuple[bool, tuple[int, ...], str | None]] = {}
            self.final: tuple[str, datetime | None, int | None] | None = None

        def submit(self, index: int, body: dict[str, object]) -> None:
            drawn = self.attempt.questions[index % len(self.attempt.questions)]
            submission: service.Submission = (
                ChoiceSubmission(tuple(body["tokens"]))  # type: ignore[arg-type]
                if "tokens" in body
                else NumericSubmission(body["value"], body["unit"])  # type: ignore[arg-type]
            )
            deadline = self.attempt.deadline_at
            try:
                with database.write_connection() as connection:
                    answered = service.submit_answer(
                        connection,
                        catalog,
                        self.learner,
                        self.attempt.id,
                        drawn.id,
                        submission,
                        "test",
                        self.now,
                        GENEROUS,
                    )
            except AlreadyAnsweredError as error:
                assert drawn.id in self.locked
                stored = self.locked[drawn.id]
                # The model, not the test, decides which outcome is right here, so pytest.raises does not fit.
                assert (error.answer.correct, error.answer.chosen, error.answer.text) == stored  # noqa: PT017
                return
            except AttemptClosedError as error:
                assert self.final is not None or (deadline is not None and self.now >= deadline)
                if self.final is None:
                    assert error.timed_out  # noqa: PT017  (as above)
                    self.final = ("expired", error.attempt.finished_at, error.attempt.score_percent)
                return
            assert self.final is None
            assert drawn.id not in self.locked
            assert deadline is None or self.now < deadline
            answer = answered.answer
            self.locked[drawn.id] = (answer.correct, answer.chosen, answer.text)

        @rule(index=st.integers(0, 9), right=st.booleans())
        def answer(self, index: int, right: bool) -> None:
            drawn = self.attempt.questions[index % len(self.attempt.questions)]
            self.submit(index, right_answer(drawn) if right else wrong_answer(drawn))

        @rule(index=st.integers(0, 9))
        def replay(self, index: int) -> None:
            drawn = self.attempt.questions[index % len(self.attempt.questions)]
            self.submit(index, right_answer(drawn))

        @rule(index=st.integers(0, 9))
        def malformed(self, index: int) -> None:
            drawn = self.attempt.questions[index % len(self.attempt.questions)]
            bad: service.Submission = (
                NumericSubmission("lots") if drawn.type == "numeric" else ChoiceSubmission(("forged",))
            )
            try:
                with database.write_connection() as connection:
                    service.submit_answer(
                        connection, catalog, self.learner, self.attempt.id, drawn.id, bad, "test", self.now, GENEROUS
                    )
            except (InvalidSubmissionError, AlreadyAnsweredError, AttemptClosedError) as error:
                if isinstance(error, AttemptClosedError) and self.final is None:
                    self.final = ("expired", error.attempt.finished_at, error.attempt.score_percent)
                return
            raise AssertionError("a malformed answer was accepted")

        @rule()
        def finish(self) -> None:
            with database.write_session() as session:
                view = service.finish_attempt(session, catalog, self.learner, self.attempt.id, self.now)
            outcome = (view.state, view.finished_at, view.score_percent)
            if self.final is None:
                deadline = self.attempt.deadline_at
                expected = "expired" if deadline is not None and self.now >= deadline else "finished"
                assert view.state == expected
                self.final = outcome
            assert outcome == self.final  # finishing happens once

        @rule(minutes=st.integers(0, 20))
        def wait(self, minutes: int) -> None:
            self.now += timedelta(minutes=minutes)

        @invariant()
        def stored_answers_match_the_locked_ones(self) -> None:
            with database.read_session() as session:
                rows = session.scalars(select(QuizAnswer).where(QuizAnswer.attempt_id == self.attempt.id)).all()
                attempt = session.get(QuizAttempt, self.attempt.id)
            assert attempt is not None
            assert {row.question_id: (row.correct, tuple(row.chosen or ()), row.text) for row in rows} == self.locked
            if self.final is None:
                assert attempt.state in ("created", "in_progress")
                assert attempt.state == ("in_progress" if self.locked else "created")
            else:
                assert attempt.state == self.final[0]
                assert attempt.score_percent is not None
                assert 0 <= attempt.score_percent <= 100
                correct = sum(1 for locked in self.locked.values() if locked[0])
                assert attempt.correct_count == correct
                assert attempt.score_percent == round(100 * correct / attempt.question_count)

    return Attempts


def test_attempt_state_machine(database: Database) -> None:
    run_state_machine_as_test(
        make_machine(database),
        settings=settings(
            max_examples=30, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
        ),
    )
