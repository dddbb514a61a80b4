"""The result's breakdown (issue 14, item 9): the misconceptions an attempt's answers showed, with the sections that
take each apart, and the options of partly right multiple-choice answers, only where the exam's rule lets them
show; and the deadline of a timed attempt on the learner's clock (item 10)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache

import pytest

from app.quiz.bank import Question, Quiz
from app.quiz.deadline import deadline, zone_named
from app.quiz.grading import Grade
from app.quiz.messages import SUBMISSION_ERRORS, QuizText
from app.quiz.readmodels import AnswerView, AttemptView, DrawnView, ShownOption
from app.web.i18n import load_translations
from tests.unit.quiz.helpers import T0, real_quiz


@cache
def text(language: str) -> QuizText:
    return QuizText(load_translations()[language], language)


def drawn(question: Question, number: int) -> DrawnView:
    options = tuple(ShownOption(f"t{index}", index, option) for index, option in enumerate(question.options))
    return DrawnView(number, question, next(question.combinations()), options)


def attempt(quiz: Quiz, answers: dict[str, AnswerView], reveal: bool = True, state: str = "finished") -> AttemptView:
    questions = tuple(drawn(question, number) for number, question in enumerate(quiz.questions, start=1))
    return AttemptView("a1", quiz, state, T0, None, T0, questions, answers, 0, 0, passed=False, reveal=reveal)


def chose(shown: DrawnView, chosen: tuple[int, ...], reveal: bool = True) -> AnswerView:
    grade = Grade(frozenset(chosen) == shown.question.correct_indexes)
    return AnswerView(shown.id, shown, grade, chosen, None, answered=True, reveal=reveal)


def typed(shown: DrawnView, diagnosis: str | None, reveal: bool = True) -> AnswerView:
    grade = Grade(diagnosis is None, diagnosis, None if diagnosis is None else 8.0)
    return AnswerView(shown.id, shown, grade, (), "1 ms", answered=True, reveal=reveal)


def with_misconception(quiz: Quiz) -> list[tuple[Question, int, str]]:
    """(question, option index, misconception) for every wrong option that names one in a single-choice question."""
    return [
        (question, index, option.misconception)
        for question in quiz.questions
        if question.type == "single"
        for index, option in enumerate(question.options)
        if option.misconception is not None and not option.correct
    ]


def test_misconceptions_are_named_counted_and_lead_to_their_sections() -> None:
    quiz = real_quiz("nvlink")
    empty = attempt(quiz, {})
    by_question = {shown.id: shown for shown in empty.questions}
    picks = with_misconception(quiz)
    code = picks[0][2]
    same = [(question, index) for question, index, named in picks if named == code]
    other = next((question, index, named) for question, index, named in picks if named != code)
    assert same, code
    answers = {question.id: chose(by_question[question.id], (index,)) for question, index in same}
    answers[other[0].id] = chose(by_question[other[0].id], (other[1],))
    numeric = next(shown for shown in empty.questions if shown.type == "numeric")
    answers[numeric.id] = typed(numeric, "bits-bytes+direction")
    shown = attempt(quiz, answers).misconceptions_shown()

    counts = {item.code: item.answers for item in shown}
    assert counts[code] >= len(same)
    assert counts[other[2]] >= 1
    assert counts["bits-bytes"] >= 1
    assert counts["direction"] >= 1
    assert [item.answers for item in shown] == sorted((item.answers for item in shown), reverse=True)
    first = next(item for item in shown if item.code == code)
    assert first.sections[0] == (same[0][0].chapter, same[0][0].section)
    assert len(set(first.sections)) == len(first.sections)
    for item in shown:
        assert text("en").misconception(item.code), item.code  # every counted one has a name to show
        assert text("ko").misconception(item.code) != text("en").misconception(item.code)


def test_right_answers_arithmetic_and_unanswered_show_no_misconception() -> None:
    quiz = real_quiz("nvlink")
    empty = attempt(quiz, {})
    numeric = [shown for shown in empty.questions if shown.type == "numeric"]
    answers = {numeric[0].id: typed(numeric[0], None), numeric[1].id: typed(numeric[1], "arithmetic")}
    answers[numeric[2].id] = typed(numeric[2], "sign")
    assert attempt(quiz, answers).misconceptions_shown() == ()
    assert empty.misconceptions_shown() == ()  # nothing answered: wrong, but no misconception shown


def multiple_question(quiz: Quiz) -> Question:
    return next(
        question
        for question in quiz.questions
        if question.type == "multiple"
        and len(question.correct_indexes) >= 2
        and len(question.options) > len(question.correct_indexes)
    )


def test_a_partly_right_multiple_choice_answer_tells_each_option_apart() -> None:
    quiz = real_quiz("nvlink")
    question = multiple_question(quiz)
    shown = drawn(question, 1)
    right = sorted(question.correct_indexes)
    wrong = next(index for index in range(len(question.options)) if index not in question.correct_indexes)
    answer = chose(shown, (right[0], wrong))
    assert answer.partly_right
    assert not answer.correct
    verdicts = {verdict.shown.index: verdict.verdict for verdict in answer.option_verdicts()}
    assert verdicts[right[0]] == "chosen-right"
    assert verdicts[wrong] == "chosen-wrong"
    assert verdicts[right[1]] == "missed"
    assert set(verdicts.values()) <= {"chosen-right", "chosen-wrong", "missed", "avoided"}
    assert len(verdicts) == len(question.options)
    finished = attempt(quiz, {shown.id: answer})
    assert [item.question_id for item in finished.partly_right()] == [shown.id]

    assert not chose(shown, tuple(right)).partly_right  # all right: not partly
    assert not chose(shown, (wrong,)).partly_right  # nothing right: wrong, not partly right


def test_the_exam_tells_no_option_apart_before_it_is_passed() -> None:
    exam = real_quiz("exam")
    question = multiple_question(exam)
    shown = drawn(question, 1)
    wrong = next(index for index in range(len(question.options)) if index not in question.correct_indexes)
    answer = chose(shown, (min(question.correct_indexes), wrong), reveal=False)
    unpassed = attempt(exam, {shown.id: answer}, reveal=False)
    assert unpassed.partly_right() == ()
    with pytest.raises(AssertionError):
        answer.option_verdicts()
    passed = attempt(exam, {shown.id: chose(shown, (min(question.correct_indexes), wrong))}, reveal=True)
    assert len(passed.partly_right()) == 1


def test_a_no_javascript_error_comes_back_only_for_a_known_code_and_question() -> None:
    quiz = real_quiz("nvlink")
    open_attempt = attempt(quiz, {}, state="in_progress")
    numeric = next(shown for shown in open_attempt.questions if shown.type == "numeric")
    assert text("en").returned_error(open_attempt, numeric.id, "not_a_number") == {
        numeric.id: "Type a number followed by its unit."
    }
    wrong_kind = text("ko").returned_error(open_attempt, numeric.id, "wrong_dimension")[numeric.id]
    assert numeric.unit is not None
    assert numeric.unit in wrong_kind
    assert "<script>" not in SUBMISSION_ERRORS
    for question_id, code in ((numeric.id, "<script>"), ("no-such-question", "not_a_number"), (None, None)):
        assert text("en").returned_error(open_attempt, question_id, code) == {}


@pytest.mark.parametrize(
    "name",
    ["", "Mars/Olympus", "../../etc/passwd", "/etc/localtime", "Asia/Seoul\x00", "a" * 80, "Asia/Seoul; path=/"],
)
def test_only_real_time_zone_names_are_used(name: str) -> None:
    assert zone_named(name) is None


def test_the_deadline_in_the_learners_zone_or_in_utc() -> None:
    ends = T0 + timedelta(minutes=30)
    seoul = deadline(ends, T0 + timedelta(seconds=90), "Asia/Seoul")
    assert seoul is not None
    assert seoul.zone_name == "Asia/Seoul"
    assert seoul.local.strftime("%H:%M") == "18:30"  # UTC+9, no daylight saving
    assert seoul.seconds_left == 28 * 60 + 30
    assert seoul.minutes_left == 29
    unknown = deadline(ends, T0, "Nowhere/Atlantis")
    assert unknown is not None
    assert unknown.zone is None
    assert unknown.local.strftime("%H:%M") == "09:30"
    assert unknown.ends_at.tzinfo == UTC
    late = deadline(ends, ends + timedelta(seconds=5), None)
    assert late is not None
    assert late.seconds_left == 0
    assert deadline(None, T0, "Asia/Seoul") is None
    new_york = deadline(datetime(2026, 7, 1, 12, 0, tzinfo=UTC), T0, "America/New_York")
    assert new_york is not None
    assert new_york.local.strftime("%H:%M") == "08:00"
