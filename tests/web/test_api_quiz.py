"""The quiz JSON API (DESIGN §4) on SQLite and PostgreSQL: contract, ownership, locking, errors, no leaks, and
bodies no parser should have to read; conformance with its own OpenAPI schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance

from app.quiz.models import QuizAnswer, QuizAttempt
from app.ratelimit import Limit
from app.web.middleware.body import BODY_MAX_BYTES as MAX_BODY_BYTES
from tests.conftest import GENEROUS_POLICY, SettingsFactory
from tests.web.html import has_hangul
from tests.web.quizzes import (
    attempt_of,
    count,
    quiz_app,
    right_answer,
    secrets_of,
    start_api_attempt,
    state_of,
    wrong_answer,
)

ANSWER_FIELDS = {"question_id", "correct", "explanation", "correct_tokens", "correct_value", "unit", "feedback"}


@pytest.fixture
def app(database_url: str, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = quiz_app(database_url, make_settings)
    yield application
    state_of(application).database.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def test_quizzes_are_listed_in_the_requested_language(app: FastAPI, client: TestClient) -> None:
    english = {quiz["id"]: quiz for quiz in client.get("/api/v1/quizzes?lang=en").json()}
    korean = {quiz["id"]: quiz for quiz in client.get("/api/v1/quizzes?lang=ko").json()}
    catalog = state_of(app).quiz.catalog
    assert set(english) == {quiz.id for quiz in catalog}
    assert english["nvlink"] == {
        "id": "nvlink",
        "title": "NVLink practice quiz",
        "chapter": "nvlink",
        "question_count": catalog.quizzes["nvlink"].draw,
        "pass_percent": 70,
    }
    assert english["exam"]["question_count"] == 10
    assert english["exam"]["chapter"] is None
    assert korean["exam"]["title"] == "최종 시험"
    by_header = client.get("/api/v1/quizzes", headers={"accept-language": "ko-KR"}).json()
    assert {quiz["id"]: quiz["title"] for quiz in by_header}["exam"] == "최종 시험"


def test_a_started_attempt_reveals_nothing_about_the_answers(app: FastAPI, client: TestClient) -> None:
    for lang in ("en", "ko"):
        response = client.post(f"/api/v1/quizzes/nvlink/attempts?lang={lang}")
        assert response.status_code == 201
        assert response.headers["cache-control"] == "no-store"
        body = response.json()
        assert set(body) == {"attempt_id", "quiz_id", "questions", "deadline"}
        for question in body["questions"]:
            assert set(question) == {"id", "type", "prompt", "options", "unit"}
            for option in question["options"]:
                assert set(option) == {"token", "text"}
        text = json.dumps(body, ensure_ascii=False)
        state = client.get(f"/api/v1/attempts/{body['attempt_id']}?lang={lang}")
        assert state.headers["cache-control"] == "no-store"
        assert state.json()["answers"] == []
        for drawn in attempt_of(app, client, body["attempt_id"]).questions:
            for secret in secrets_of(drawn, lang):
                assert secret not in text
                assert secret not in state.text
        assert "correct" not in text
        assert "explanation" not in text


def test_answer_then_locked_then_finish(app: FastAPI, client: TestClient) -> None:
    attempt_id = start_api_attempt(client)["attempt_id"]
    questions = attempt_of(app, client, attempt_id).questions
    numeric = next(d for d in questions if d.type == "numeric")
    choice = next(d for d in questions if d.type == "single")

    right = client.post(f"/api/v1/attempts/{attempt_id}/answers", json=right_answer(numeric))
    assert right.status_code == 200
    assert right.headers["cache-control"] == "no-store"
    assert set(right.json()) == ANSWER_FIELDS
    assert right.json()["correct"] is True
    assert right.json()["correct_value"] == pytest.approx(right_answer(numeric)["value"])
    assert right.json()["correct_tokens"] is None

    wrong = client.post(f"/api/v1/attempts/{attempt_id}/answers", json=wrong_answer(choice))
    assert wrong.status_code == 200
    result = wrong.json()
    assert result["correct"] is False
    assert result["correct_tokens"] == [s.token for s in choice.options if s.option.correct]
    assert result["explanation"]
    assert result["feedback"]

    again = client.post(f"/api/v1/attempts/{attempt_id}/answers", json=right_answer(choice))
    assert again.status_code == 409
    assert again.json()["answer"] == result  # the stored result, unchanged
    assert again.json()["detail"] == "You have already answered this question; your answer is locked."
    assert count(app, QuizAnswer) == 2

    finished = client.post(f"/api/v1/attempts/{attempt_id}/finish")
    assert finished.json() == {"score_percent": round(100 / len(questions)), "passed": False}
    assert client.post(f"/api/v1/attempts/{attempt_id}/finish").json() == finished.json()
    state = client.get(f"/api/v1/attempts/{attempt_id}").json()
    assert state["state"] == "finished"
    assert len(state["answers"]) == 2
    late = client.post(f"/api/v1/attempts/{attempt_id}/answers", json=right_answer(questions[-1]))
    assert late.status_code == 409
    assert late.json()["detail"] == "This attempt is over; answers can no longer be changed."
    assert count(app, QuizAnswer) == 2


def test_numeric_answers_accept_units_and_name_the_slip(app: FastAPI, client: TestClient) -> None:
    attempt_id = start_api_attempt(client, lang="ko")["attempt_id"]
    numeric = [d for d in attempt_of(app, client, attempt_id).questions if d.type == "numeric"]
    base = right_answer(numeric[0])
    eight_times = {"question_id": base["question_id"], "value": f"{base['value'] * 8} {base['unit']}"}
    response = client.post(f"/api/v1/attempts/{attempt_id}/answers?lang=ko", json=eight_times).json()
    assert response["correct"] is False
    assert any("비트와 바이트" in line for line in response["feedback"])
    if len(numeric) > 1:
        other = right_answer(numeric[1])
        in_millis = {"question_id": other["question_id"], "value": other["value"], "unit": other["unit"]}
        assert client.post(f"/api/v1/attempts/{attempt_id}/answers", json=in_millis).json()["correct"] is True


@pytest.mark.parametrize(
    "payload",
    [
        "not json",
        "[]",
        {"question_id": "x"},
        {"question_id": "x", "tokens": ["a"], "value": 1},
        {"question_id": "no-such-question", "tokens": ["a"]},
        {"question_id": "h100-one-direction", "tokens": ["forged-token"]},
        {"question_id": "h100-one-direction", "tokens": ["a"], "extra": 1},
        {"question_id": "h100-one-direction", "tokens": ["a"] * 33},
        {"question_id": "h100-one-direction", "tokens": "a"},
        {"question_id": "q" * 65, "tokens": ["a"]},
    ],
)
def test_malformed_answers_get_422_in_the_learners_language(app: FastAPI, client: TestClient, payload: object) -> None:
    attempt_id = start_api_attempt(client, lang="ko")["attempt_id"]
    content = payload if isinstance(payload, str) else json.dumps(payload)
    response = client.post(
        f"/api/v1/attempts/{attempt_id}/answers?lang=ko",
        content=content,
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422
    assert has_hangul(response.json()["detail"]), response.json()
    assert client.get(f"/api/v1/attempts/{attempt_id}").json()["answers"] == []
    assert count(app, QuizAnswer) == 0


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"[" * 1000 + b"]" * 1000, "application/json"),  # 2 KB: Python's json recursed once per bracket
        (b'{"question_id": ' * 1000 + b"1" + b"}" * 1000, "application/json"),
        (b"[" * 1000 + b"]" * 1000, "Application/JSON"),  # media types are case-insensitive (RFC 9110 §8.3.1)
        (b"[" * 1000 + b"]" * 1000, "application/json; charset=utf-8"),
        (b"[" * 2000, "application/json"),  # never closed
    ],
)
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_deeply_nested_body_is_a_422_with_a_message(
    app: FastAPI, client: TestClient, body: bytes, content_type: str, lang: str
) -> None:
    for attempt_id in ("x", start_api_attempt(client)["attempt_id"]):
        response = client.post(
            f"/api/v1/attempts/{attempt_id}/answers?lang={lang}", content=body, headers={"content-type": content_type}
        )
        assert response.status_code == 422
        assert response.headers["content-type"] == "application/json"
        detail = response.json()["detail"]
        expected = state_of(app).translations[lang].gettext("The request body is nested too deeply to be an answer.")
        assert detail == expected
        assert has_hangul(detail) == (lang == "ko")
    assert count(app, QuizAnswer) == 0


@pytest.mark.parametrize("content_type", ["application/json", "APPLICATION/JSON"])
def test_an_oversized_body_is_a_413_and_nothing_is_stored(app: FastAPI, client: TestClient, content_type: str) -> None:
    attempt_id = start_api_attempt(client)["attempt_id"]
    oversized = json.dumps({"question_id": "x" * MAX_BODY_BYTES, "tokens": ["a"]}).encode()
    for path in (f"/api/v1/attempts/{attempt_id}/answers", "/api/v1/quizzes/nvlink/attempts"):
        response = client.post(f"{path}?lang=ko", content=oversized, headers={"content-type": content_type})
        assert response.status_code == 413
        detail = response.json()["detail"]
        assert detail == state_of(app).translations["ko"].gettext("The request body is too large.")
        assert has_hangul(detail)
    assert count(app, QuizAnswer) == 0
    assert count(app, QuizAttempt) == 1


def test_other_learners_and_unknown_ids_get_404(app: FastAPI, client: TestClient) -> None:
    body = start_api_attempt(client)
    attempt_id = body["attempt_id"]
    question = body["questions"][0]
    answer: dict[str, Any] = {"question_id": question["id"]}
    answer |= {"tokens": [question["options"][0]["token"]]} if question["options"] else {"value": 1}
    with TestClient(app) as stranger:
        assert stranger.get(f"/api/v1/attempts/{attempt_id}").status_code == 404
        assert stranger.post(f"/api/v1/attempts/{attempt_id}/answers", json=answer).status_code == 404
        assert stranger.post(f"/api/v1/attempts/{attempt_id}/finish").status_code == 404
    assert client.post("/api/v1/quizzes/no-such-quiz/attempts").status_code == 404
    assert client.get("/api/v1/attempts/no-such-attempt").json() == {"detail": "There is no such quiz or attempt."}
    assert (
        client.get("/api/v1/attempts/no-such-attempt?lang=ko").json()["detail"]
        == "해당하는 퀴즈나 응시 기록이 없습니다."
    )
    assert count(app, QuizAnswer) == 0
    state = client.get(f"/api/v1/attempts/{attempt_id}").json()
    assert state["state"] == "created"


# Ids no attempt can have: a NUL (which PostgreSQL refuses in any text), too long, outside token_urlsafe's alphabet.
FOREIGN_IDS = ["a%00b", "%00", "x" * 65, "a.b", "%C3%A9t%C3%A9", "a%20b"]


def test_an_id_no_attempt_can_have_is_simply_unknown(client: TestClient) -> None:
    question = start_api_attempt(client)["questions"][0]
    for attempt_id in FOREIGN_IDS:
        answer = {"question_id": question["id"], "value": "1 ms"}
        for response in (
            client.get(f"/api/v1/attempts/{attempt_id}?lang=ko"),
            client.post(f"/api/v1/attempts/{attempt_id}/answers?lang=ko", json=answer),
            client.post(f"/api/v1/attempts/{attempt_id}/finish?lang=ko"),
        ):
            assert response.status_code == 404, (attempt_id, response.text)
            assert response.json() == {"detail": "해당하는 퀴즈나 응시 기록이 없습니다."}
    for quiz_id in ("a%00b", "exam%00"):
        assert client.post(f"/api/v1/quizzes/{quiz_id}/attempts").status_code == 404


def test_too_many_starts_get_429_with_retry_after(database_url: str, make_settings: SettingsFactory) -> None:
    application = quiz_app(database_url, make_settings, replace(GENEROUS_POLICY, start_per_learner=Limit(2, 3600)))
    try:
        with TestClient(application) as client:
            start_api_attempt(client)
            start_api_attempt(client)
            response = client.post("/api/v1/quizzes/nvlink/attempts")
            assert response.status_code == 429
            assert 0 < int(response.headers["retry-after"]) <= 3600 * 1.1  # a sliding window of tenths
            assert response.json()["detail"].startswith("Too many requests")
            assert count(application, QuizAttempt) == 2
    finally:
        state_of(application).database.dispose()


def test_every_status_is_declared_in_openapi(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    answers = paths["/api/v1/attempts/{attempt_id}/answers"]["post"]
    assert {"200", "403", "404", "409", "422", "429", "503"} <= set(answers["responses"])
    assert "requestBody" in answers
    starts = paths["/api/v1/quizzes/{quiz_id}/attempts"]["post"]
    assert {"201", "403", "404", "429", "503"} <= set(starts["responses"])
    assert {"200", "404", "503"} <= set(paths["/api/v1/attempts/{attempt_id}"]["get"]["responses"])
    assert {"200", "403", "404", "503"} <= set(paths["/api/v1/attempts/{attempt_id}/finish"]["post"]["responses"])


def test_quiz_api_conforms_to_its_openapi_schema(app: FastAPI) -> None:
    """Requests generated from the schema, every check schemathesis has: no 5xx, every status declared, every
    body valid against the schema, invalid input refused."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", app).include(path_regex=r"^/api/v1/(quizzes|attempts)")
    checked = []
    for result in schema.get_all_operations():
        operation = result.ok()  # type: ignore[union-attr]  # an Err here means the schema itself is broken

        @given(case=operation.as_strategy())
        @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def check(case: Any) -> None:
            # Generated ids name no attempt (or no quiz), so a schema-valid request rightly gets a 404: every
            # other check applies.
            case.call_and_validate(excluded_checks=[positive_data_acceptance])

        check()
        checked.append(operation.label)
    assert sorted(checked) == [
        "GET /api/v1/attempts/{attempt_id}",
        "GET /api/v1/quizzes",
        "POST /api/v1/attempts/{attempt_id}/answers",
        "POST /api/v1/attempts/{attempt_id}/finish",
        "POST /api/v1/quizzes/{quiz_id}/attempts",
    ]
