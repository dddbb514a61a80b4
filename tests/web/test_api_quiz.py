"""The quiz JSON API (DESIGN §4) on SQLite and PostgreSQL: contract, ownership, locking, errors, no leaks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.quiz.ratelimit import Limit
from app.quiz.service import QuizPolicy
from app.quiz.views import DrawnView
from tests.conftest import SettingsFactory
from tests.unit.quiz.helpers import attempt_of, quiz_app, right_answer, secrets_of, wrong_answer


@pytest.fixture
def app(database_url: str, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = quiz_app(database_url, make_settings)
    yield application
    application.state.interconnects.database.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def start(client: TestClient, quiz_id: str = "nvlink", lang: str = "en") -> dict[str, Any]:
    response = client.post(f"/api/v1/quizzes/{quiz_id}/attempts?lang={lang}")
    assert response.status_code == 201, response.text
    assert response.headers["cache-control"] == "no-store"
    body: dict[str, Any] = response.json()
    return body


def drawn_questions(app: FastAPI, client: TestClient, attempt_id: str) -> list[DrawnView]:
    return list(attempt_of(app, client, attempt_id).questions)


def test_quizzes_are_listed_in_the_requested_language(client: TestClient) -> None:
    english = {quiz["id"]: quiz for quiz in client.get("/api/v1/quizzes?lang=en").json()}
    korean = {quiz["id"]: quiz for quiz in client.get("/api/v1/quizzes?lang=ko").json()}
    assert english["nvlink"] == {
        "id": "nvlink",
        "title": "NVLink practice quiz",
        "chapter": "nvlink",
        "question_count": 11,
        "pass_percent": 70,
    }
    assert english["exam"]["question_count"] == 10
    assert english["exam"]["chapter"] is None
    assert korean["exam"]["title"] == "최종 시험"


def test_a_started_attempt_reveals_nothing_about_the_answers(app: FastAPI, client: TestClient) -> None:
    for lang in ("en", "ko"):
        body = start(client, lang=lang)
        assert set(body) == {"attempt_id", "quiz_id", "questions", "deadline"}
        for question in body["questions"]:
            assert set(question) == {"id", "type", "prompt", "options", "unit"}
            for option in question["options"]:
                assert set(option) == {"token", "text"}
        text = json.dumps(body, ensure_ascii=False)
        state = client.get(f"/api/v1/attempts/{body['attempt_id']}?lang={lang}").json()
        assert state["answers"] == []
        for drawn in drawn_questions(app, client, body["attempt_id"]):
            for secret in secrets_of(drawn, lang):
                assert secret not in text
                assert secret not in json.dumps(state, ensure_ascii=False)
        assert "correct" not in text
        assert "explanation" not in text


def test_answer_then_locked_then_finish(app: FastAPI, client: TestClient) -> None:
    body = start(client)
    attempt_id = body["attempt_id"]
    questions = drawn_questions(app, client, attempt_id)
    numeric = next(d for d in questions if d.type == "numeric")
    choice = next(d for d in questions if d.type == "single")

    right = client.post(f"/api/v1/attempts/{attempt_id}/answers", json=right_answer(numeric)).json()
    assert right["correct"] is True
    assert set(right) == {"question_id", "correct", "explanation", "correct_value", "unit", "feedback"}

    wrong = client.post(f"/api/v1/attempts/{attempt_id}/answers", json=wrong_answer(choice))
    assert wrong.status_code == 200
    result = wrong.json()
    assert result["correct"] is False
    assert result["correct_tokens"] == [s.token for s in choice.options if s.option.correct]
    assert result["feedback"]

    again = client.post(f"/api/v1/attempts/{attempt_id}/answers", json=right_answer(choice))
    assert again.status_code == 409
    assert again.json()["answer"] == result  # the stored result, unchanged
    assert again.json()["detail"]

    finished = client.post(f"/api/v1/attempts/{attempt_id}/finish")
    assert finished.json() == {"score_percent": round(100 / len(questions)), "passed": False}
    assert client.post(f"/api/v1/attempts/{attempt_id}/finish").json() == finished.json()
    state = client.get(f"/api/v1/attempts/{attempt_id}").json()
    assert state["state"] == "finished"
    assert len(state["answers"]) == 2
    late = client.post(f"/api/v1/attempts/{attempt_id}/answers", json=right_answer(questions[-1]))
    assert late.status_code == 409


def test_numeric_answers_accept_units_and_name_the_slip(app: FastAPI, client: TestClient) -> None:
    body = start(client, lang="ko")
    questions = drawn_questions(app, client, body["attempt_id"])
    numeric = [d for d in questions if d.type == "numeric"]
    base = right_answer(numeric[0])
    eight_times = {"question_id": base["question_id"], "value": f"{base['value'] * 8} {base['unit']}"}
    response = client.post(f"/api/v1/attempts/{body['attempt_id']}/answers?lang=ko", json=eight_times).json()
    assert response["correct"] is False
    assert any("비트와 바이트" in line for line in response["feedback"])


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        ("not json", 422),
        ({"question_id": "x"}, 422),
        ({"question_id": "x", "tokens": ["a"], "value": 1}, 422),
        ({"question_id": "no-such-question", "tokens": ["a"]}, 422),
        ({"question_id": "h100-one-direction", "tokens": ["forged-token"]}, 422),
        ({"question_id": "h100-one-direction", "tokens": ["a"], "extra": 1}, 422),
    ],
)
def test_malformed_answers_get_422_in_the_learners_language(client: TestClient, payload: object, status: int) -> None:
    body = start(client, lang="ko")
    content = payload if isinstance(payload, str) else json.dumps(payload)
    response = client.post(
        f"/api/v1/attempts/{body['attempt_id']}/answers?lang=ko",
        content=content,
        headers={"content-type": "application/json"},
    )
    assert response.status_code == status
    detail = response.json()["detail"]
    assert any("\uac00" <= char <= "\ud7a3" for char in detail), detail
    assert client.get(f"/api/v1/attempts/{body['attempt_id']}").json()["answers"] == []


def test_other_learners_and_unknown_ids_get_404(app: FastAPI, client: TestClient) -> None:
    body = start(client)
    with TestClient(app) as stranger:
        attempt_id = body["attempt_id"]
        question = body["questions"][0]
        assert stranger.get(f"/api/v1/attempts/{attempt_id}").status_code == 404
        answer = {
            "question_id": question["id"],
            "tokens": [o["token"] for o in question["options"][:1]] or None,
            "value": None if question["options"] else 1,
        }
        assert (
            stranger.post(
                f"/api/v1/attempts/{attempt_id}/answers", json={k: v for k, v in answer.items() if v is not None}
            ).status_code
            == 404
        )
        assert stranger.post(f"/api/v1/attempts/{attempt_id}/finish").status_code == 404
    assert client.post("/api/v1/quizzes/no-such-quiz/attempts").status_code == 404
    assert client.get("/api/v1/attempts/no-such-attempt").json() == {"detail": "There is no such quiz or attempt."}


def test_a_foreign_origin_cannot_start_or_answer(client: TestClient) -> None:
    response = client.post("/api/v1/quizzes/nvlink/attempts", headers={"origin": "https://evil.example"})
    assert response.status_code == 403


def test_too_many_starts_get_429_with_retry_after(database_url: str, make_settings: SettingsFactory) -> None:
    app = quiz_app(database_url, make_settings, QuizPolicy(start_per_learner=Limit(2, 3600)))
    try:
        with TestClient(app) as client:
            start(client)
            start(client)
            response = client.post("/api/v1/quizzes/nvlink/attempts")
            assert response.status_code == 429
            assert 0 < int(response.headers["retry-after"]) <= 3600
            assert response.json()["detail"].startswith("Too many requests")
    finally:
        app.state.interconnects.database.dispose()


def test_every_status_is_declared_in_openapi(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    answers = paths["/api/v1/attempts/{attempt_id}/answers"]["post"]
    assert {"200", "404", "409", "422", "429"} <= set(answers["responses"])
    assert "requestBody" in answers
    starts = paths["/api/v1/quizzes/{quiz_id}/attempts"]["post"]
    assert {"201", "404", "429"} <= set(starts["responses"])
    assert {"200", "404"} <= set(paths["/api/v1/attempts/{attempt_id}"]["get"]["responses"])
    assert {"200", "404"} <= set(paths["/api/v1/attempts/{attempt_id}/finish"]["post"]["responses"])
