"""Quiz pages with and without HTMX, on SQLite and PostgreSQL; nothing is given away before an answer is locked."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.quiz.grading import expected_in_unit
from app.quiz.views import DrawnView
from tests.conftest import SettingsFactory
from tests.unit.quiz.helpers import attempt_of, csrf_token, quiz_app, secrets_of
from tests.web.test_pages import parse

HX = {"HX-Request": "true"}


@pytest.fixture
def app(database_url: str, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = quiz_app(database_url, make_settings)
    yield application
    application.state.interconnects.database.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def start(client: TestClient, lang: str = "en", path: str | None = None) -> str:
    landing = path or f"/{lang}/guides/nvlink/quiz"
    response = client.post(landing, data={"csrf_token": csrf_token(client, landing)}, follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    match = re.fullmatch(rf"/{lang}/attempts/([A-Za-z0-9_-]+)", location)
    assert match is not None, location
    return match.group(1)


def form_for(drawn: DrawnView, token: str, right: bool = True) -> dict[str, object]:
    if drawn.type == "numeric":
        value = expected_in_unit(drawn.question, drawn.parameters) * (1 if right else 8)
        return {"csrf_token": token, "value": f"{value:.6g} {drawn.unit}"}
    options = [s.token for s in drawn.options if s.option.correct == right]
    return {"csrf_token": token, "tokens": options if right else options[:1]}


def test_landing_pages_are_private_and_kept_out_of_history(client: TestClient) -> None:
    for path in ("/en/guides/nvlink/quiz", "/ko/guides/nvlink/quiz", "/en/exam", "/ko/exam"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.headers["cache-control"] == "no-store"
        assert 'hx-history="false"' in response.text
    assert "30" in client.get("/en/exam").text  # the time limit is announced
    assert client.get("/en/guides/nvswitch/quiz").status_code == 404  # planned chapter
    assert client.get("/en/guides/no-such/quiz").status_code == 404
    assert client.get("/xx/exam").status_code == 404


def test_the_chapter_links_to_its_quiz(client: TestClient) -> None:
    assert 'href="/ko/guides/nvlink/quiz"' in client.get("/ko/guides/nvlink").text


def test_no_answer_is_given_away_before_it_is_locked(app: FastAPI, client: TestClient) -> None:
    for lang in ("en", "ko"):
        attempt_id = start(client, lang)
        attempt = attempt_of(app, client, attempt_id)
        page = client.get(f"/{lang}/attempts/{attempt_id}")
        assert page.headers["cache-control"] == "no-store"
        assert 'hx-history="false"' in page.text
        option_classes = {
            a.get("class")
            for tag, a in parse(page.text).attributes
            if tag == "li" and "quiz-option" in (a.get("class") or "")
        }
        assert option_classes == {"quiz-option"}  # the right option looks like every other
        for forbidden in ("is-right", "is-correct", "quiz-feedback", "quiz-explanation"):
            assert forbidden not in page.text
        for drawn in attempt.questions:
            for secret in secrets_of(drawn, lang):
                assert secret not in page.text, secret
        # Answering one question reveals that question only.
        first, *others = attempt.questions
        token = csrf_token(client, f"/{lang}/attempts/{attempt_id}")
        fragment = client.post(
            f"/{lang}/attempts/{attempt_id}/questions/{first.id}", data=form_for(first, token), headers=HX
        )
        assert fragment.status_code == 200
        for text in (fragment.text, client.get(f"/{lang}/attempts/{attempt_id}").text):
            for drawn in others:
                for secret in secrets_of(drawn, lang):
                    assert secret not in text
        assert client.get(f"/{lang}/attempts/{attempt_id}/review", follow_redirects=False).status_code == 303


def test_without_javascript_answer_finish_and_review(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client, "ko")
    attempt = attempt_of(app, client, attempt_id)
    token = csrf_token(client, f"/ko/attempts/{attempt_id}")
    for index, drawn in enumerate(attempt.questions):
        response = client.post(
            f"/ko/attempts/{attempt_id}/questions/{drawn.id}",
            data=form_for(drawn, token, right=index % 2 == 0),
            follow_redirects=False,
        )
        assert response.status_code == 303
        assert response.headers["location"] == f"/ko/attempts/{attempt_id}#question-{drawn.id}"
    page = client.get(f"/ko/attempts/{attempt_id}").text
    assert page.count("quiz-feedback") == len(attempt.questions)
    assert "정답입니다." in page
    assert "틀렸습니다." in page
    finished = client.post(f"/ko/attempts/{attempt_id}/finish", data={"csrf_token": token}, follow_redirects=False)
    assert finished.headers["location"] == f"/ko/attempts/{attempt_id}/result"
    result = client.get(f"/ko/attempts/{attempt_id}/result")
    right = (len(attempt.questions) + 1) // 2
    assert f"{len(attempt.questions)}문제 중 {right}문제 정답" in result.text
    review = client.get(f"/ko/attempts/{attempt_id}/review").text
    for drawn in attempt.questions:
        assert drawn.prompt("ko") in review
    assert review.count("본문에서 이 부분 다시 보기") == len(attempt.questions)
    assert 'href="/ko/guides/nvlink#' in review
    # The home page now shows the learner's best score.
    home = client.get("/ko/").text
    assert "최고 점수" in home
    assert 'id="course-progress"' in home
    # Below the pass mark, the learner is sent back to the chapter rather than to the start.
    assert '<a class="button button-primary" href="/ko/guides/nvlink">이어서 보기: NVLink</a>' in home
    assert "강좌 시작하기" not in home


def test_with_htmx_the_feedback_fragment_comes_back_and_is_locked(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client)
    attempt = attempt_of(app, client, attempt_id)
    drawn = next(d for d in attempt.questions if d.type == "single")
    token = csrf_token(client, f"/en/attempts/{attempt_id}")
    url = f"/en/attempts/{attempt_id}/questions/{drawn.id}"
    response = client.post(url, data=form_for(drawn, token, right=False), headers=HX)
    assert response.status_code == 200
    assert response.headers["vary"] == "HX-Request"
    assert response.headers["cache-control"] == "no-store"
    assert not response.text.lstrip().startswith("<!doctype")
    assert "data-focus-after-swap" in response.text
    assert "Not quite." in response.text
    assert 'hx-swap-oob="true"' in response.text
    assert "Answered 1 of" in response.text
    replay = client.post(url, data=form_for(drawn, token, right=True), headers=HX)
    assert replay.status_code == 409
    assert "already answered" in replay.text
    assert "Not quite." in replay.text  # the stored result, not a new grading


def test_bad_input_gets_a_message_in_the_learners_language(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client, "ko")
    attempt = attempt_of(app, client, attempt_id)
    numeric = next(d for d in attempt.questions if d.type == "numeric")
    token = csrf_token(client, f"/ko/attempts/{attempt_id}")
    url = f"/ko/attempts/{attempt_id}/questions/{numeric.id}"
    fragment = client.post(url, data={"csrf_token": token, "value": "빠름"}, headers=HX)
    assert fragment.status_code == 422
    assert "숫자를 입력하십시오" in fragment.text
    page = client.post(url, data={"csrf_token": token, "value": "3 kg"})
    assert page.status_code == 422
    assert "알 수 없는 단위입니다" in page.text
    assert page.text.lstrip().startswith("<!doctype")
    forged = client.post(
        f"/ko/attempts/{attempt_id}/questions/{attempt.questions[0].id}",
        data={"csrf_token": token, "tokens": "forged"},
        headers=HX,
    )
    assert forged.status_code == 422
    assert "Answered 0 of" not in forged.text
    assert client.post(url, data={"value": "1 ms"}).status_code == 403  # no CSRF token


def test_another_learner_gets_404(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client)
    with TestClient(app) as stranger:
        assert stranger.get(f"/en/attempts/{attempt_id}").status_code == 404
        assert stranger.get(f"/en/attempts/{attempt_id}/review").status_code == 404
        token = csrf_token(stranger)
        assert stranger.post(f"/en/attempts/{attempt_id}/finish", data={"csrf_token": token}).status_code == 404
    assert client.get("/en/attempts/no-such-attempt").status_code == 404


def test_the_exam_is_limited_and_shows_when_to_come_back(client: TestClient) -> None:
    start(client, path="/en/exam")
    landing = client.get("/en/exam").text
    assert "Please wait 10 minutes before starting the exam again." in landing
    assert 'action="/en/exam"' not in landing  # no start button while waiting
    response = client.post("/en/exam", data={"csrf_token": csrf_token(client)})
    assert response.status_code == 429
    assert 0 < int(response.headers["retry-after"]) <= 600
    assert "Please wait 10 minutes" in response.text
