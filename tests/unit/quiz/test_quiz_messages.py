"""QuizText: the quiz's sentences in the learner's language; a stored oddity (a ratio of 1e25) never breaks one."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from functools import cache

import pytest
from sqlalchemy.orm import Session

from app.db import Database
from app.quiz.bank import Question
from app.quiz.errors import RateLimitedError
from app.quiz.grading import Grade
from app.quiz.messages import QuizText
from app.quiz.models import QuizAnswer
from app.quiz.readmodels import AnswerView, DrawnView, ShownOption
from app.web.i18n import load_translations
from tests.unit.quiz.helpers import context, quiz_service, real_catalog, real_quiz, run


@cache
def text(language: str) -> QuizText:
    return QuizText(load_translations()[language], language)


def bank_question(predicate: str) -> Question:
    return next(question for question in real_quiz("nvlink").questions if question.type == predicate)


def drawn(question: Question) -> DrawnView:
    options = tuple(ShownOption(f"t{index}", index, option) for index, option in enumerate(question.options))
    return DrawnView(1, question, next(question.combinations()), options)


def numeric_answer(grade: Grade, reveal: bool = True) -> AnswerView:
    shown = drawn(bank_question("numeric"))
    return AnswerView(shown.id, shown, grade, (), "3 ms", answered=True, reveal=reveal)


def choice_answer(chosen: int, reveal: bool = True) -> AnswerView:
    shown = drawn(bank_question("single"))
    correct = shown.question.options[chosen].correct
    return AnswerView(shown.id, shown, Grade(correct), (chosen,), None, answered=True, reveal=reveal)


def test_a_stored_huge_ratio_still_renders_feedback_and_the_explanation(database: Database) -> None:
    """Before values were bounded, an answer of 1e30 stored a ratio of 1e25, and every page showing it failed."""
    service = quiz_service(database)
    attempt = run(service.start(context("a" * 32), service.quiz("nvlink")))
    question = next(shown for shown in attempt.questions if shown.type == "numeric")

    def store_the_oddity(session: Session) -> None:
        session.add(
            QuizAnswer(
                attempt_id=attempt.id,
                question_id=question.id,
                text="1e30 ms",
                value=1e27,
                correct=False,
                diagnosis="arithmetic",
                ratio=1e25,
                answered_at=datetime(2026, 12, 1, 9, 1, tzinfo=UTC),
            )
        )

    database.transaction(store_the_oddity, write=True)
    stored = run(service.attempt(context("a" * 32), attempt.id)).answers[question.id]
    assert stored.grade.ratio == 1e25
    for language in ("en", "ko"):
        lines = text(language).feedback(stored)
        assert len(lines) == 1
        assert "1e+25" in lines[0].text
        expected = text(language).expected(stored)
        assert expected is not None
        assert expected.endswith(f" {question.unit}")
        explanation = stored.explanation(language)
        assert explanation
        assert expected.split(" ")[0] in explanation  # the explanation states the right answer
    assert "Not a unit slip: your answer is 1e+25× the right one." in text("en").feedback(stored)[0].text


@pytest.mark.parametrize(("ratio", "shown"), [(math.inf, "inf"), (1e300, "1e+300"), (1e-300, "1e-300")])
def test_any_ratio_renders(ratio: float, shown: str) -> None:
    answer = numeric_answer(Grade(False, "arithmetic", ratio))
    for language in ("en", "ko"):
        assert shown in text(language).feedback(answer)[0].text


def test_a_unit_slip_is_named_and_explained() -> None:
    lines = text("en").feedback(numeric_answer(Grade(False, "bits-bytes", 8.0)))
    assert [(line.label, line.text) for line in lines] == [
        ("Bits versus bytes", "Your answer is off by a factor of 8: bits versus bytes. Gb/s counts bits, GB/s bytes.")
    ]
    korean = text("ko").feedback(numeric_answer(Grade(False, "bits-bytes", 8.0)))
    assert korean[0].label == "비트와 바이트"
    two = text("en").feedback(numeric_answer(Grade(False, "direction+bits-bytes", 16.0)))
    assert two[0].label is None  # two slips: the sentence names both
    assert "×2" in two[0].text
    assert "×8" in two[0].text


def test_hidden_exam_feedback_says_nothing_not_even_the_slip() -> None:
    for grade in (Grade(False, "direction+bits-bytes", 16.0), Grade(False, "arithmetic", 3.0), Grade(True)):
        hidden = numeric_answer(grade, reveal=False)
        assert text("en").feedback(hidden) == []
        assert text("ko").feedback(hidden) == []
        assert text("en").expected(hidden) is None


def test_a_zero_answer_gets_a_sentence_without_a_ratio() -> None:
    lines = text("en").feedback(numeric_answer(Grade(False, "arithmetic", None)))
    assert [line.text for line in lines] == ["Not one of the usual unit slips: recheck the arithmetic."]
    korean = text("ko").feedback(numeric_answer(Grade(False, "arithmetic", None)))
    assert [line.text for line in korean] == ["흔한 단위 실수는 아닙니다. 계산을 다시 확인하십시오."]


def test_a_wrong_option_shows_its_own_feedback_only_when_revealed() -> None:
    question = bank_question("single")
    wrong = next(index for index, option in enumerate(question.options) if not option.correct)
    option = question.options[wrong]
    assert option.feedback is not None
    assert option.misconception is not None
    label = text("ko").misconception(option.misconception)
    revealed = text("ko").feedback(choice_answer(wrong))
    assert [(line.label, line.text) for line in revealed] == [(label, option.feedback.get("ko"))]
    assert text("ko").feedback(choice_answer(wrong, reveal=False)) == []
    right = next(index for index, option in enumerate(question.options) if option.correct)
    assert text("en").feedback(choice_answer(right)) == []


def test_a_hint_shows_the_format_with_a_number_that_is_no_answer() -> None:
    question = bank_question("numeric")
    assert question.hint_value is not None
    hint = text("en").hint(drawn(question))
    assert hint.startswith(f"In {question.unit}, or with another unit of the same kind: the format is like ")
    example = hint.removesuffix(".").rsplit(" like ", 1)[1]
    assert example.endswith(f" {question.unit}")
    for combination in question.combinations():
        answer = text("en").expected(
            AnswerView(question.id, DrawnView(1, question, combination, ()), Grade(True), (), None, answered=True)
        )
        assert answer != example


def test_rate_limits_say_how_long_to_wait() -> None:
    exam = real_catalog().exam
    assert exam is not None
    assert exam.attempts_per_day is not None
    daily = text("en").rate_limited(RateLimitedError(23 * 3600 + 20 * 60, "exam_daily", quiz=exam))
    assert daily == f"You can take the exam at most {exam.attempts_per_day} times in 24 hours. Try again in 24 hours."
    assert text("en").rate_limited(RateLimitedError(300, "exam_gap")) == (
        "Please wait 5 minutes before starting the exam again."
    )
    assert text("en").rate_limited(RateLimitedError(59)) == "Too many requests. Please wait 59 seconds and try again."
    assert text("ko").rate_limited(RateLimitedError(59)) == "요청이 너무 많습니다. 59초 뒤에 다시 시도하십시오."
    assert text("en").duration(61) == "2 minutes"
    assert text("en").duration(60) == "1 minute"
    assert text("en").duration(89 * 60) == "89 minutes"
    assert text("en").duration(90 * 60) == "2 hours"


def test_submission_errors_have_a_message_for_every_code() -> None:
    assert text("en").submission_error("out_of_range") == (
        "That number is too large or too small to be an answer to any question here."
    )
    assert text("en").submission_error("wrong_dimension", "ms") == (
        "That unit measures something else: this question asks for ms."
    )
    assert text("en").submission_error("no-such-code") == "The answer could not be read."
    assert text("ko").submission_error("out_of_range") != text("en").submission_error("out_of_range")
