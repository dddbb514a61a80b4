"""A Hypothesis state machine over start / answer / replay / finish / expire of the exam, against QuizService on
a real database.

The model is the learner's story: every start is allowed or refused as the exam's rules say (three a day, ten
minutes apart), starting over abandons the open attempt, a locked answer never changes, an attempt past its
time limit closes with what was stored, and finishing happens once. Invariants: the stored rows match the
model, the score stays within bounds and counts the locked right answers, and what a view reveals follows the
exam rule (nothing until the learner has passed the exam).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from sqlalchemy import select

import app.models  # noqa: F401  (every table)
from app.db import Database
from app.quiz.errors import AlreadyAnsweredError, AttemptClosedError, InvalidSubmissionError, RateLimitedError
from app.quiz.models import QuizAnswer, QuizAttempt
from app.quiz.readmodels import AnswerView, AttemptView
from app.quiz.service import ChoiceSubmission, NumericSubmission, Submission
from tests.unit.quiz.helpers import T0, context, quiz_service, right_submission, run, wrong_submission

DAY = timedelta(days=1)


@dataclass
class Sitting:
    """What the model expects of one attempt."""

    view: AttemptView
    locked: dict[str, tuple[bool, tuple[int, ...], str | None]] = field(default_factory=dict)
    final: tuple[str, datetime, int] | None = None  # state, finished_at and score, once closed

    def expired_by(self, now: datetime) -> bool:
        return self.view.deadline_at is not None and now >= self.view.deadline_at


def make_machine(database: Database) -> type[RuleBasedStateMachine]:
    service = quiz_service(database)
    exam = service.exam()
    assert exam.attempts_per_day is not None
    per_day, gap = exam.attempts_per_day, timedelta(seconds=exam.seconds_between_attempts)

    class ExamAttempts(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.learner = secrets.token_hex(16)
            self.now = T0
            self.starts: list[datetime] = []
            self.sittings: dict[str, Sitting] = {}
            self.current: Sitting | None = None
            self.passed = False  # the learner has passed the exam: its answers are revealed

        # --- the model's rules ------------------------------------------------------------------------------

        def expected_wait(self) -> tuple[str, int] | None:
            recent = [moment for moment in self.starts if moment > self.now - DAY]
            waits = []
            if len(recent) >= per_day:
                waits.append((recent[-per_day] + DAY, "exam_daily"))
            if recent and recent[-1] + gap > self.now:
                waits.append((recent[-1] + gap, "exam_gap"))
            if not waits:
                return None
            moment, reason = max(waits)
            return reason, max(1, int((moment - self.now).total_seconds() + 0.999))

        def close(self, sitting: Sitting, state: str) -> None:
            """What the service does to an open attempt: its state, this moment, and the score of what is stored."""
            correct = sum(1 for locked in sitting.locked.values() if locked[0])
            total = len(sitting.view.questions)
            sitting.final = (state, self.now, round(100 * correct / total))
            if correct * 100 >= exam.pass_percent * total:
                self.passed = True

        def check_closed(self, sitting: Sitting, view: AttemptView) -> None:
            assert (view.state, view.finished_at, view.score_percent) == sitting.final

        def check_reveal(self, answer: AnswerView, sitting: Sitting) -> None:
            """The exam judges an answer only on a closed attempt of a learner who has passed it."""
            assert answer.reveal is (self.passed and sitting.final is not None)
            if not answer.reveal:
                assert (answer.correct_tokens, answer.correct_value, answer.explanation("en")) == (None, None, None)
                assert (answer.verdict, answer.feedback, answer.misconceptions) == (None, (), ())

        # --- rules -------------------------------------------------------------------------------------------
        # In each rule the model decides which outcome is right, so pytest.raises does not fit (PT017).

        @rule()
        def start(self) -> None:
            wait = self.expected_wait()
            try:
                view = run(service.start(context(self.learner, self.now), exam))
            except RateLimitedError as error:
                assert wait is not None
                assert (error.reason, error.retry_after_s) == wait  # noqa: PT017
                current = self.current
                if current is not None and current.final is None and current.expired_by(self.now):
                    self.close(current, "expired")  # the refusal's landing page read it past its deadline
                return
            assert wait is None
            if self.current is not None and self.current.final is None:  # starting over abandons the sitting
                self.close(self.current, "expired")
            assert view.state == "created"
            assert view.reveal is False  # an open attempt says nothing, whoever sits it
            self.starts.append(self.now)
            self.current = self.sittings[view.id] = Sitting(view)

        def submit(self, sitting: Sitting, question_id: str, submission: Submission) -> AnswerView | None:
            """Submit, and check the outcome against the model; the new answer when one was locked."""
            locked = sitting.locked.get(question_id)
            timed_out = sitting.final is None and sitting.expired_by(self.now)
            try:
                answered = run(
                    service.answer(context(self.learner, self.now), sitting.view.id, question_id, submission)
                )
            except AlreadyAnsweredError as error:
                assert locked is not None
                stored = error.answer
                assert (stored.correct, stored.chosen, stored.text) == locked
                self.check_reveal(stored, sitting)
                return None
            except AttemptClosedError as error:
                assert locked is None
                assert sitting.final is not None or timed_out
                assert error.code == ("timed_out" if timed_out else "closed")  # noqa: PT017
                if timed_out:
                    self.close(sitting, "expired")
                self.check_closed(sitting, error.attempt)
                return None
            assert (locked, sitting.final, timed_out) == (None, None, False)
            answer = answered.answer
            sitting.locked[question_id] = (answer.correct, answer.chosen, answer.text)
            self.check_reveal(answer, sitting)
            assert answered.attempt.state == "in_progress"
            return answer

        def sitting_and_question(self, index: int) -> tuple[Sitting, str]:
            assert self.current is not None
            questions = self.current.view.questions
            return self.current, questions[index % len(questions)].id

        @precondition(lambda self: self.current is not None)
        @rule(index=st.integers(0, 9), right=st.booleans())
        def answer(self, index: int, right: bool) -> None:
            sitting, question_id = self.sitting_and_question(index)
            drawn = sitting.view.question(question_id)
            assert drawn is not None
            answer = self.submit(sitting, question_id, right_submission(drawn) if right else wrong_submission(drawn))
            if answer is not None:
                assert answer.correct is right

        @precondition(lambda self: self.current is not None)
        @rule()
        def answer_the_rest_right(self) -> None:
            """A learner who knows the material (so that some attempts pass and the exam's answers are revealed)."""
            assert self.current is not None
            sitting = self.current
            for drawn in sitting.view.questions:
                if drawn.id not in sitting.locked:
                    self.submit(sitting, drawn.id, right_submission(drawn))

        @precondition(lambda self: self.current is not None)
        @rule(index=st.integers(0, 9))
        def replay(self, index: int) -> None:
            """The right answer to a question that may be locked already (a double click, a replayed request)."""
            sitting, question_id = self.sitting_and_question(index)
            drawn = sitting.view.question(question_id)
            assert drawn is not None
            self.submit(sitting, question_id, right_submission(drawn))

        @precondition(lambda self: self.current is not None)
        @rule(index=st.integers(0, 9))
        def malformed(self, index: int) -> None:
            sitting, question_id = self.sitting_and_question(index)
            drawn = sitting.view.question(question_id)
            assert drawn is not None
            bad: Submission = NumericSubmission("lots") if drawn.type == "numeric" else ChoiceSubmission(("forged",))
            accepted_now = question_id not in sitting.locked and sitting.final is None
            if not accepted_now or sitting.expired_by(self.now):
                assert self.submit(sitting, question_id, bad) is None  # refused for what the model knows
                return
            with pytest.raises(InvalidSubmissionError) as raised:
                run(service.answer(context(self.learner, self.now), sitting.view.id, question_id, bad))
            assert raised.value.code == ("not_a_number" if drawn.type == "numeric" else "unknown_option")

        @precondition(lambda self: self.current is not None)
        @rule()
        def finish(self) -> None:
            assert self.current is not None
            sitting = self.current
            view = run(service.finish(context(self.learner, self.now), sitting.view.id))
            if sitting.final is None:
                self.close(sitting, "expired" if sitting.expired_by(self.now) else "finished")
            self.check_closed(sitting, view)  # finishing happens once: a repeat returns the stored result
            assert view.reveal is self.passed

        @precondition(lambda self: self.current is not None)
        @rule()
        def expire(self) -> None:
            """Read the attempt after its time limit: reading closes it with what was stored."""
            assert self.current is not None
            sitting = self.current
            assert sitting.view.deadline_at is not None
            self.now = max(self.now, sitting.view.deadline_at)
            view = run(service.attempt(context(self.learner, self.now), sitting.view.id))
            if sitting.final is None:
                self.close(sitting, "expired")
            self.check_closed(sitting, view)

        @rule(minutes=st.sampled_from([0, 1, 4, 9, 11, 39, 41, 6 * 60, 25 * 60]))
        def wait(self, minutes: int) -> None:
            self.now += timedelta(minutes=minutes)

        # --- invariants --------------------------------------------------------------------------------------

        @invariant()
        def stored_rows_match_the_model(self) -> None:
            with database.session() as session:
                attempts = {
                    attempt.id: attempt
                    for attempt in session.scalars(select(QuizAttempt).where(QuizAttempt.learner_id == self.learner))
                }
                answers = session.scalars(select(QuizAnswer).where(QuizAnswer.attempt_id.in_(list(attempts)))).all()
            assert set(attempts) == set(self.sittings)
            for attempt_id, sitting in self.sittings.items():
                attempt = attempts[attempt_id]
                stored = {
                    row.question_id: (row.correct, tuple(row.chosen or ()), row.text)
                    for row in answers
                    if row.attempt_id == attempt_id
                }
                assert stored == sitting.locked
                if sitting.final is None:
                    assert attempt.state == ("in_progress" if sitting.locked else "created")
                    assert attempt.score_percent is None
                    continue
                assert attempt.state == sitting.final[0]
                assert attempt.score_percent is not None
                assert 0 <= attempt.score_percent <= 100
                correct = sum(1 for locked in sitting.locked.values() if locked[0])
                assert attempt.correct_count == correct
                assert attempt.score_percent == round(100 * correct / attempt.question_count)
                assert attempt.passed is (correct * 100 >= exam.pass_percent * attempt.question_count)
            open_attempts = [attempt for attempt in attempts.values() if attempt.state in ("created", "in_progress")]
            assert len(open_attempts) <= 1  # starting over closed the others

    return ExamAttempts


def test_exam_attempt_state_machine(database: Database) -> None:
    run_state_machine_as_test(
        make_machine(database),
        settings=settings(
            max_examples=30, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
        ),
    )
