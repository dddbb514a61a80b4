"""Absurd numbers: an answer of 1e30 is refused with a 422 in the learner's language and nothing is stored; and
a value of 1e30 already stored (an older version accepted it) never breaks a response or a page (no 500)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.quiz.grading import diagnose
from app.quiz.messages import SUBMISSION_ERRORS
from app.quiz.models import QuizAnswer
from tests.conftest import SettingsFactory
from tests.web.html import has_hangul
from tests.web.quizzes import (
    HX,
    answer_form,
    attempt_of,
    count,
    quiz_app,
    right_answer,
    start_page_attempt,
    state_of,
)

ABSURD = 1e30


@pytest.fixture
def app(database_url: str, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = quiz_app(database_url, make_settings)
    yield application
    state_of(application).database.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def out_of_range(app: FastAPI, lang: str) -> str:
    return state_of(app).translations[lang].gettext(SUBMISSION_ERRORS["out_of_range"])


TYPED = ["1e30", "1e30 ms", "1e30 GB/s", "-1e30", "1e-30", "1e30 TB/s", "9" * 40]
SENT: list[dict[str, object]] = [
    {"value": ABSURD},
    {"value": -ABSURD},
    {"value": 1 / ABSURD},
    {"value": ABSURD, "unit": "s"},
    {"value": ABSURD, "unit": "GB/s"},
    {"value": "1e30"},
    {"value": "1e30 s"},
    {"value": 1.7976931348623157e308},
]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_an_absurd_number_in_the_form_is_a_422_in_the_learners_language(
    app: FastAPI, client: TestClient, lang: str
) -> None:
    attempt_id = start_page_attempt(client, f"/{lang}/guides/nvlink/quiz")
    numeric = next(d for d in attempt_of(app, client, attempt_id).questions if d.type == "numeric")
    url = f"/{lang}/attempts/{attempt_id}/questions/{numeric.id}"
    message = out_of_range(app, lang)
    assert has_hangul(message) == (lang == "ko")
    for typed in TYPED:  # magnitudes are judged before the kind of unit: as a time or a rate, 1e30 is absurd
        response = client.post(url, data={"value": typed}, headers=HX)
        assert response.status_code == 422, typed
        assert message in response.text
        # Without JavaScript: back to the question, whose page shows the message there.
        plain = client.post(url, data={"value": typed}, follow_redirects=False)
        assert plain.status_code == 303, typed
        location = plain.headers["location"]
        kept = urlencode({"value": typed})  # what was typed comes back into the field
        assert location.endswith(f"&error=out_of_range&{kept}#question-{numeric.id}"), location
        assert message in client.get(location).text
    assert count(app, QuizAnswer) == 0


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_an_absurd_number_in_the_api_is_a_422_in_the_learners_language(
    app: FastAPI, client: TestClient, lang: str
) -> None:
    attempt_id = client.post(f"/api/v1/quizzes/nvlink/attempts?lang={lang}").json()["attempt_id"]
    numeric = next(d for d in attempt_of(app, client, attempt_id).questions if d.type == "numeric")
    for answer in SENT:
        url = f"/api/v1/attempts/{attempt_id}/answers?lang={lang}"
        response = client.post(url, json={"question_id": numeric.id} | answer)
        assert response.status_code == 422, (answer, response.text)
        assert response.json() == {"detail": out_of_range(app, lang)}
    assert count(app, QuizAnswer) == 0
    assert client.get(f"/api/v1/attempts/{attempt_id}").json()["answers"] == []


def store_absurd_answer(app: FastAPI, client: TestClient, attempt_id: str) -> str:
    """Write an answer of 1e30 (in base units) straight into the database, as an older version would have
    stored it, with the grade the grader gives it; returns the question's id."""
    attempt = attempt_of(app, client, attempt_id)
    numeric = next(d for d in attempt.questions if d.type == "numeric")
    computed = numeric.question.compute(numeric.parameters)
    ratio = ABSURD / computed.value
    with state_of(app).database.session(write=True) as session:
        session.add(
            QuizAnswer(
                attempt_id=attempt_id,
                question_id=numeric.id,
                chosen=None,
                text="1e30",
                value=ABSURD,
                correct=False,
                diagnosis=diagnose(ratio, computed),
                ratio=ratio,
                answered_at=state_of(app).clock(),
            )
        )
        session.commit()
    return numeric.id


@pytest.mark.parametrize("landing", ["/en/guides/nvlink/quiz", "/en/exam"])
def test_a_stored_absurd_value_never_breaks_a_response_or_a_page(
    app: FastAPI, client: TestClient, landing: str
) -> None:
    attempt_id = start_page_attempt(client, landing)
    absurd_id = store_absurd_answer(app, client, attempt_id)
    others = [d for d in attempt_of(app, client, attempt_id).questions if d.id != absurd_id]

    # Answering other questions (the attempt around them holds the absurd answer), by API and by the form.
    for index, lang in enumerate(("en", "ko")):
        by_api, by_form = others[2 * index], others[2 * index + 1]
        api = client.post(f"/api/v1/attempts/{attempt_id}/answers?lang={lang}", json=right_answer(by_api))
        assert api.status_code == 200, api.text
        fragment = client.post(
            f"/{lang}/attempts/{attempt_id}/questions/{by_form.id}", data=answer_form(by_form), headers=HX
        )
        assert fragment.status_code == 200
        assert ("Answered 3 of" if lang == "en" else "문항 중 6문항 답함") in fragment.text
        plain = client.post(
            f"/{lang}/attempts/{attempt_id}/questions/{others[4 + index].id}",
            data=answer_form(others[4 + index]),
            follow_redirects=False,
        )
        assert plain.status_code == 303

    # Replaying the absurd answer's question: 409 with the stored answer, in every form.
    for lang in ("en", "ko"):
        replay = client.post(
            f"/api/v1/attempts/{attempt_id}/answers?lang={lang}", json={"question_id": absurd_id, "value": "1 ms"}
        )
        assert replay.status_code == 409, replay.text
        assert replay.json()["answer"]["correct"] is (None if landing == "/en/exam" else False)  # the exam is silent
        assert replay.json()["answer"]["question_id"] == absurd_id
        url = f"/{lang}/attempts/{attempt_id}/questions/{absurd_id}"
        replayed = client.post(url, data={"value": "1 ms"}, headers=HX)
        assert replayed.status_code == 409
        assert "1e30" in replayed.text
        assert client.post(url, data={"value": "1 ms"}, follow_redirects=False).status_code == 303

        state = client.get(f"/api/v1/attempts/{attempt_id}?lang={lang}")
        assert state.status_code == 200
        assert absurd_id in {answer["question_id"] for answer in state.json()["answers"]}
        page = client.get(f"/{lang}/attempts/{attempt_id}")
        assert page.status_code == 200
        assert "1e30" in page.text

    assert client.post(f"/api/v1/attempts/{attempt_id}/finish").status_code == 200
    for lang in ("en", "ko"):
        for path in ("result", "review"):
            response = client.get(f"/{lang}/attempts/{attempt_id}/{path}")
            assert response.status_code == 200, (lang, path)
        review = client.get(f"/{lang}/attempts/{attempt_id}/review")
        if landing == "/en/exam":  # a failed exam has no per-question review: the address leads to the result
            assert review.history[0].status_code == 303
        else:
            assert "1e30" in review.text
        assert client.get(f"/api/v1/attempts/{attempt_id}?lang={lang}").status_code == 200
    assert client.get("/en/").status_code == 200
