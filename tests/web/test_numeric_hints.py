"""A numeric question's hint shows the format with an example quantity (issue 9): the example is in the question's
own unit and is never close to the answer, for any parameters the question can draw; so it can be neither
copied as the answer nor mistaken for a clue to it."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.i18n import LANGUAGES
from app.quiz.bank import Question, draw_parameter
from app.quiz.grading import expected_in_unit
from app.quiz.messages import SUBMISSION_ERRORS, QuizText
from app.quiz.readmodels import DrawnView
from app.quiz.units import parse_quantity, unit_named, written
from app.simulator.models import Dimension, ParameterValue
from tests.conftest import SettingsFactory
from tests.web.quizzes import HX, attempt_of, quiz_app, start_api_attempt, start_page_attempt, state_of

DRAWS_PER_QUESTION = 300
CLOSEST = 0.20  # the example is never within 20 % of the answer
ATTEMPTS_PER_QUIZ = 3


def numeric_questions(app: FastAPI) -> list[tuple[str, Question]]:
    return [
        (quiz.id, question)
        for quiz in state_of(app).quiz.catalog
        for question in quiz.questions
        if question.type == "numeric"
    ]


def drawn_parameter_sets(question: Question, rng: random.Random) -> Iterator[dict[str, ParameterValue]]:
    """Every combination validation probes, then many drawn as an attempt draws them."""
    yield from question.combinations()
    names = sorted(question.parameters)
    for _ in range(DRAWS_PER_QUESTION):
        yield {name: draw_parameter(question.parameters[name], rng) for name in names}


def example_of(hint: str, language: str) -> str:
    match = re.search(r"(?:the format is like|형식 예:) (.+?)\.?$", hint)
    assert match is not None, (language, hint)
    return match.group(1)


def test_every_bank_has_numeric_questions_with_hints(shared_app: FastAPI) -> None:
    by_quiz = {quiz_id for quiz_id, _ in numeric_questions(shared_app)}
    assert by_quiz == {quiz.id for quiz in state_of(shared_app).quiz.catalog}
    assert all(question.hint_value is not None for _, question in numeric_questions(shared_app))


def test_the_example_is_never_near_the_answer_for_any_drawn_parameters(shared_app: FastAPI) -> None:
    translations = state_of(shared_app).translations
    text = {language: QuizText(translations[language], language) for language in LANGUAGES}
    for quiz_id, question in numeric_questions(shared_app):
        rng = random.Random(f"{quiz_id}/{question.id}")  # reproducible draws
        for parameters in drawn_parameter_sets(question, rng):
            answer = expected_in_unit(question, parameters)
            drawn = DrawnView(1, question, parameters, ())
            for language in LANGUAGES:
                example = parse_quantity(example_of(text[language].hint(drawn), language))  # as typed, commas too
                plain = parse_quantity(example_of(text[language].hint(drawn), language).replace(",", ""))
                assert example.base_value == plain.base_value, "a thousands comma is read as one"
                assert example.unit.symbol == drawn.unit == written(question.unit or ""), (question.id, example)
                assert abs(example.value - answer) > CLOSEST * abs(answer), (quiz_id, question.id, parameters)
                assert example.value >= 100 * answer, (question.id, parameters, answer, example.value)
                assert math.log10(example.value).is_integer(), "a round power of ten: plainly an example"


@pytest.fixture
def app(database_url: str, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = quiz_app(database_url, make_settings)
    yield application
    state_of(application).database.dispose()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_hint_on_the_page_is_in_the_unit_and_far_from_the_answer(app: FastAPI, language: str) -> None:
    seen = 0
    for quiz in state_of(app).quiz.catalog:
        for _ in range(ATTEMPTS_PER_QUIZ):
            with TestClient(app) as client:  # a learner each: the exam allows one start per 10 minutes
                attempt_id = start_api_attempt(client, quiz.id, language)["attempt_id"]
                page = client.get(f"/{language}/attempts/{attempt_id}").text
                for drawn in attempt_of(app, client, attempt_id).questions:
                    if drawn.type != "numeric":
                        continue
                    hint = re.search(rf'<p class="quiz-hint" id="hint-{drawn.id}">(.*?)</p>', page, re.S)
                    assert hint is not None, drawn.id
                    example = parse_quantity(example_of(hint.group(1).strip(), language))
                    answer = expected_in_unit(drawn.question, drawn.parameters)
                    assert example.unit.symbol == drawn.unit
                    assert f"{drawn.unit}</span>" in page  # the unit shown next to the field is the same
                    assert abs(example.value - answer) > CLOSEST * abs(answer), (drawn.id, drawn.parameters)
                    seen += 1
    assert seen >= len(list(state_of(app).quiz.catalog)) * ATTEMPTS_PER_QUIZ


def with_comma(drawn: DrawnView) -> str:
    """The right answer as a learner with a decimal comma types it: in ns or B/s, two decimals after a comma."""
    base = drawn.question.compute(drawn.parameters).value
    assert drawn.unit is not None
    unit, factor = ("ns", 1e9) if unit_named(drawn.unit).dimension is Dimension.TIME else ("B/s", 1.0)
    return f"{base * factor:.2f} {unit}".replace(".", ",")


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_answer_typed_with_a_decimal_comma_is_graded_as_with_a_point(app: FastAPI, language: str) -> None:
    with TestClient(app) as client:
        attempt_id = start_page_attempt(client, f"/{language}/guides/nvlink/quiz")
        first, second, *_ = [d for d in attempt_of(app, client, attempt_id).questions if d.type == "numeric"]
        url = f"/{language}/attempts/{attempt_id}/questions/{first.id}"

        ambiguous = client.post(url, data={"value": f"2,4567 {first.unit}"}, headers=HX)
        assert ambiguous.status_code == 422
        message = state_of(app).translations[language].gettext(SUBMISSION_ERRORS["ambiguous_comma"])
        assert message in ambiguous.text
        assert "2,4" in message

        assert client.post(url, data={"value": with_comma(first)}, headers=HX).status_code == 200
        by_api = client.post(
            f"/api/v1/attempts/{attempt_id}/answers?lang={language}",
            json={"question_id": second.id, "value": with_comma(second)},
        )
        assert by_api.status_code == 200, by_api.text
        assert by_api.json()["correct"] is True
        answers = client.get(f"/api/v1/attempts/{attempt_id}").json()["answers"]
        assert {answer["question_id"]: answer["correct"] for answer in answers} == {first.id: True, second.id: True}
