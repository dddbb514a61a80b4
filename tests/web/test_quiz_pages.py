"""Quiz pages with and without HTMX, on SQLite and PostgreSQL; nothing is given away before an answer is locked."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.quiz.models import QuizAnswer
from app.quiz.readmodels import DrawnView
from app.ratelimit import Limit
from tests.conftest import GENEROUS_POLICY, SettingsFactory
from tests.web.html import parse
from tests.web.quizzes import (
    HX,
    Clock,
    answer_form,
    attempt_of,
    count,
    quiz_app,
    secrets_of,
    start_page_attempt,
    state_of,
)

# What a browser sends with a form post or an HTMX request from one of the site's own pages.
SAME_ORIGIN = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}


@pytest.fixture
def app(database_url: str, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = quiz_app(database_url, make_settings)
    yield application
    state_of(application).database.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def start(client: TestClient, lang: str = "en", path: str | None = None) -> str:
    return start_page_attempt(client, path or f"/{lang}/guides/nvlink/quiz", **SAME_ORIGIN)


def question_block(page: str, question_id: str) -> str:
    """The markup of one question's block on the attempt page (its <li>, up to the next one)."""
    start = rf'<li class="quiz-item" id="question-{re.escape(question_id)}">'
    match = re.search(rf'{start}(.*?)</li>\s*(?:<li class="quiz-item"|</ol>)', page, re.S)
    assert match is not None, question_id
    return match.group(1)


def test_landing_pages_are_private_and_kept_out_of_history(client: TestClient) -> None:
    for path in ("/en/guides/nvlink/quiz", "/ko/guides/nvlink/quiz", "/en/exam", "/ko/exam"):
        for headers in ({}, HX):  # a full page either way: HX-Request only changes what answers return
            response = client.get(path, headers=headers)
            assert response.status_code == 200
            assert response.headers["cache-control"] == "no-store"
            assert "HX-Request" in response.headers["vary"]
            assert 'hx-history="false"' in response.text
            assert response.text.lstrip().startswith("<!doctype")
    assert "40 minutes" in client.get("/en/exam").text  # the time limit is announced
    assert client.get("/en/guides/no-such/quiz").status_code == 404
    assert client.get("/xx/exam").status_code == 404


def test_no_answer_is_given_away_before_it_is_locked(app: FastAPI, client: TestClient) -> None:
    for lang in ("en", "ko"):
        attempt_id = start(client, lang)
        attempt = attempt_of(app, client, attempt_id)
        page = client.get(f"/{lang}/attempts/{attempt_id}")
        assert page.headers["cache-control"] == "no-store"
        assert 'hx-history="false"' in page.text
        option_classes = {a.get("class") for tag, a in parse(page.text).elements if tag == "li" and a.get("class")}
        assert {c for c in option_classes if c and "quiz-option" in c} == {"quiz-option"}  # right looks like wrong
        for forbidden in ("is-right", "is-correct", "quiz-feedback", "quiz-explanation"):
            assert forbidden not in page.text
        for drawn in attempt.questions:
            for secret in secrets_of(drawn, lang):
                assert secret not in page.text, secret
        # Answering one question reveals that question only.
        first, *others = attempt.questions
        fragment = client.post(
            f"/{lang}/attempts/{attempt_id}/questions/{first.id}", data=answer_form(first), headers=HX | SAME_ORIGIN
        )
        assert fragment.status_code == 200
        for text in (fragment.text, client.get(f"/{lang}/attempts/{attempt_id}").text):
            for drawn in others:
                for secret in secrets_of(drawn, lang):
                    assert secret not in text
        review = client.get(f"/{lang}/attempts/{attempt_id}/review", follow_redirects=False)
        assert review.status_code == 303
        assert review.headers["location"] == f"/{lang}/attempts/{attempt_id}"
        result = client.get(f"/{lang}/attempts/{attempt_id}/result", follow_redirects=False)
        assert result.status_code == 303


def test_without_javascript_answer_finish_and_review(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client, "ko")
    attempt = attempt_of(app, client, attempt_id)
    for index, drawn in enumerate(attempt.questions):
        response = client.post(
            f"/ko/attempts/{attempt_id}/questions/{drawn.id}",
            data=answer_form(drawn, right=index % 2 == 0),
            headers=SAME_ORIGIN,
            follow_redirects=False,
        )
        assert response.status_code == 303
        assert response.headers["location"] == f"/ko/attempts/{attempt_id}#question-{drawn.id}"
        assert response.headers["cache-control"] == "no-store"
    page = client.get(f"/ko/attempts/{attempt_id}").text
    assert page.count('class="quiz-feedback ') == len(attempt.questions)
    assert "정답입니다." in page
    assert "틀렸습니다." in page
    finished = client.post(f"/ko/attempts/{attempt_id}/finish", headers=SAME_ORIGIN, follow_redirects=False)
    assert finished.status_code == 303
    assert finished.headers["location"] == f"/ko/attempts/{attempt_id}/result"
    assert client.get(f"/ko/attempts/{attempt_id}", follow_redirects=False).headers["location"] == (
        f"/ko/attempts/{attempt_id}/result"
    )
    result = client.get(f"/ko/attempts/{attempt_id}/result")
    assert result.headers["cache-control"] == "no-store"
    right = (len(attempt.questions) + 1) // 2
    assert f"{len(attempt.questions)}문제 중 {right}문제 정답" in result.text
    assert 'href="/ko/guides/nvlink#' in result.text  # the sections to re-read
    review = client.get(f"/ko/attempts/{attempt_id}/review")
    assert review.headers["cache-control"] == "no-store"
    for drawn in attempt.questions:
        assert drawn.prompt("ko") in review.text
    assert review.text.count("본문에서 이 부분 다시 보기") == len(attempt.questions)
    assert review.text.count("quiz-mark-right") >= sum(d.type != "numeric" for d in attempt.questions)
    # The home page now shows the learner's best score ...
    home = client.get("/ko/").text
    assert 'id="course-progress"' in home
    # ... and sends them on to the first chapter whose quiz they have not passed, rather than to the start.
    state = state_of(app)
    first = next(slug for slug in state.course.published_slugs if state.quiz.catalog.chapter_quiz(slug))
    title = state.course.require(first).titles["ko"]
    assert f'<a class="button button-primary" href="/ko/guides/{first}">이어서 보기: {title}</a>' in home
    assert "강좌 시작하기" not in home
    assert "내 최고 점수" in client.get("/ko/guides/nvlink/quiz").text


def test_with_htmx_the_feedback_fragment_comes_back_and_is_locked(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client)
    attempt = attempt_of(app, client, attempt_id)
    drawn = next(d for d in attempt.questions if d.type == "single")
    url = f"/en/attempts/{attempt_id}/questions/{drawn.id}"
    response = client.post(url, data=answer_form(drawn, right=False), headers=HX | SAME_ORIGIN)
    assert response.status_code == 200
    assert "HX-Request" in response.headers["vary"]
    assert response.headers["cache-control"] == "no-store"
    assert not response.text.lstrip().startswith("<!doctype")
    assert "data-focus-after-swap" in response.text
    assert "Not quite." in response.text
    assert 'hx-swap-oob="true"' in response.text
    assert "Answered 1 of" in response.text
    replay = client.post(url, data=answer_form(drawn, right=True), headers=HX | SAME_ORIGIN)
    assert replay.status_code == 409
    assert replay.headers["cache-control"] == "no-store"
    assert "already answered" in replay.text
    assert "Not quite." in replay.text  # the stored result, not a new grading
    assert not replay.text.lstrip().startswith("<!doctype")
    # Without HTMX the same replay is sent back to the question, where the locked answer shows.
    plain = client.post(url, data=answer_form(drawn, right=True), headers=SAME_ORIGIN, follow_redirects=False)
    assert plain.status_code == 303
    assert plain.headers["location"] == f"/en/attempts/{attempt_id}#question-{drawn.id}"
    assert count(app, QuizAnswer) == 1


def test_bad_input_gets_a_message_in_the_learners_language(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client, "ko")
    attempt = attempt_of(app, client, attempt_id)
    numeric = next(d for d in attempt.questions if d.type == "numeric")
    url = f"/ko/attempts/{attempt_id}/questions/{numeric.id}"
    fragment = client.post(url, data={"value": "빠름"}, headers=HX | SAME_ORIGIN)
    assert fragment.status_code == 422
    assert "HX-Request" in fragment.headers["vary"]
    korean = state_of(app).translations["ko"]
    assert korean.gettext("Type a number followed by its unit.") in fragment.text
    assert 'value="빠름"' in fragment.text  # what was typed stays in the field, to correct
    assert not fragment.text.lstrip().startswith("<!doctype")
    # Without JavaScript: back to the question (POST-redirect-GET), whose block shows the message (issue 14).
    plain = client.post(url, data={"value": "3 kg"}, headers=SAME_ORIGIN, follow_redirects=False)
    assert plain.status_code == 303
    assert plain.headers["cache-control"] == "no-store"
    location = plain.headers["location"]
    expected = f"/ko/attempts/{attempt_id}?question={numeric.id}&error=unknown_unit&value=3+kg#question-{numeric.id}"
    assert location == expected
    page = client.get(location)
    assert page.status_code == 200
    assert "알 수 없는 단위입니다" in question_block(page.text, numeric.id)
    assert 'value="3 kg"' in question_block(page.text, numeric.id)
    others = [drawn.id for drawn in attempt.questions if drawn.id != numeric.id]
    assert all("quiz-error" not in question_block(page.text, other) for other in others)
    assert page.text.count('class="quiz-error"') == 1
    # A made-up address shows no message (only the codes of refused answers have one), and no error page either.
    for query in (f"question={numeric.id}&error=%3Cb%3E", f"question={'x' * 500}&error=unknown_unit"):
        crafted = client.get(f"/ko/attempts/{attempt_id}?{query}")
        assert crafted.status_code == 200
        assert 'class="quiz-error"' not in crafted.text
    # A value in the address shows only beside the message of that question, escaped.
    crafted = client.get(f"/ko/attempts/{attempt_id}?question={numeric.id}&error=unknown_unit&value=%22%3E%3Cb%3E")
    assert 'value="&#34;&gt;&lt;b&gt;"' in question_block(crafted.text, numeric.id)
    assert client.get(f"/ko/attempts/{attempt_id}?value=3+kg").text.count('value="3 kg"') == 0
    choice = next(d for d in attempt.questions if d.type != "numeric")
    forged_url = f"/ko/attempts/{attempt_id}/questions/{choice.id}"
    forged = client.post(forged_url, data={"tokens": "forged"}, headers=HX)
    assert forged.status_code == 422
    assert "quiz-error" in forged.text
    followed = client.post(forged_url, data={"tokens": "forged"})  # without JavaScript, after the redirect
    assert followed.status_code == 200
    assert followed.url.fragment == f"question-{choice.id}"
    assert "quiz-error" in question_block(followed.text, choice.id)
    for headers in (HX, {}):
        unknown = client.post(
            f"/ko/attempts/{attempt_id}/questions/no-such-question", data={"value": "1 ms"}, headers=headers
        )
        assert unknown.status_code == 404
    assert count(app, QuizAnswer) == 0


def test_another_learner_gets_404(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client)
    question = attempt_of(app, client, attempt_id).questions[0]
    with TestClient(app) as stranger:
        for path in ("", "/result", "/review"):
            assert stranger.get(f"/en/attempts/{attempt_id}{path}").status_code == 404
        assert stranger.post(f"/en/attempts/{attempt_id}/finish", headers=SAME_ORIGIN).status_code == 404
        for headers in (HX, {}):
            answer = stranger.post(
                f"/en/attempts/{attempt_id}/questions/{question.id}", data=answer_form(question), headers=headers
            )
            assert answer.status_code == 404
    assert client.get("/en/attempts/no-such-attempt").status_code == 404
    assert count(app, QuizAnswer) == 0


def test_an_id_no_attempt_can_have_is_a_404_page(client: TestClient) -> None:
    for attempt_id in ("a%00b", "x" * 65, "a.b"):
        for path in ("", "/result", "/review"):
            assert client.get(f"/ko/attempts/{attempt_id}{path}").status_code == 404
        for headers in (HX, {}):
            answer = client.post(f"/ko/attempts/{attempt_id}/questions/q", data={"value": "1 ms"}, headers=headers)
            assert answer.status_code == 404
            assert "페이지를 찾을 수 없습니다" in answer.text
        assert client.post(f"/ko/attempts/{attempt_id}/finish").status_code == 404


def test_an_answer_to_a_closed_attempt_is_refused_with_and_without_htmx(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client)
    drawn = attempt_of(app, client, attempt_id).questions[0]
    assert client.post(f"/en/attempts/{attempt_id}/finish", headers=SAME_ORIGIN).status_code == 200
    url = f"/en/attempts/{attempt_id}/questions/{drawn.id}"
    fragment = client.post(url, data=answer_form(drawn), headers=HX | SAME_ORIGIN)
    assert fragment.status_code == 409
    assert "This attempt is over" in fragment.text
    assert not fragment.text.lstrip().startswith("<!doctype")
    plain = client.post(url, data=answer_form(drawn), headers=SAME_ORIGIN, follow_redirects=False)
    assert plain.status_code == 303
    assert plain.headers["location"] == f"/en/attempts/{attempt_id}/result"
    assert count(app, QuizAnswer) == 0


@pytest.mark.parametrize("htmx", [True, False])
def test_the_exam_time_limit_ends_the_attempt(database_url: str, make_settings: SettingsFactory, *, htmx: bool) -> None:
    clock = Clock()
    application = quiz_app(database_url, make_settings, clock=clock)
    try:
        with TestClient(application) as client:
            attempt_id = start(client, "ko", "/ko/exam")
            drawn = attempt_of(application, client, attempt_id).questions[0]
            clock.advance(minutes=41)
            url = f"/ko/attempts/{attempt_id}/questions/{drawn.id}"
            response = client.post(
                url, data=answer_form(drawn), headers=(HX if htmx else {}) | SAME_ORIGIN, follow_redirects=False
            )
            if htmx:
                assert response.status_code == 409
                assert "시간이 다 되었습니다" in response.text
            else:
                assert response.status_code == 303
                assert response.headers["location"] == f"/ko/attempts/{attempt_id}/result"
            assert count(application, QuizAnswer) == 0
            result = client.get(f"/ko/attempts/{attempt_id}/result")
            assert result.status_code == 200
            assert "0%" in result.text
    finally:
        state_of(application).database.dispose()


def test_the_exam_is_limited_and_shows_when_to_come_back(client: TestClient) -> None:
    start(client, path="/en/exam")
    landing = client.get("/en/exam").text
    assert "Please wait 10 minutes before starting the exam again." in landing
    assert 'action="/en/exam"' not in landing  # no start button while waiting
    response = client.post("/en/exam", headers=SAME_ORIGIN)
    assert response.status_code == 429
    assert 0 < int(response.headers["retry-after"]) <= 600
    assert "Please wait 10 minutes" in response.text
    korean = client.post("/ko/exam", headers=SAME_ORIGIN)
    assert korean.status_code == 429
    assert "10분 뒤에 시험을 다시 시작할 수 있습니다." in korean.text


def test_too_many_answers_get_429_with_and_without_htmx(database_url: str, make_settings: SettingsFactory) -> None:
    application = quiz_app(database_url, make_settings, replace(GENEROUS_POLICY, answer_per_learner=Limit(1, 60)))
    try:
        with TestClient(application) as client:
            attempt_id = start(client, "ko")
            first, second, *_ = attempt_of(application, client, attempt_id).questions
            url = f"/ko/attempts/{attempt_id}/questions/{first.id}"
            assert client.post(url, data=answer_form(first), headers=HX).status_code == 200
            url = f"/ko/attempts/{attempt_id}/questions/{second.id}"
            fragment = client.post(url, data=answer_form(second), headers=HX)
            assert fragment.status_code == 429
            assert 0 < int(fragment.headers["retry-after"]) <= 66  # a sliding window of tenths
            assert "요청이 너무 많습니다" in fragment.text
            assert not fragment.text.lstrip().startswith("<!doctype")
            page = client.post(url, data=answer_form(second))
            assert page.status_code == 429
            assert page.text.lstrip().startswith("<!doctype")
            assert "요청이 너무 많습니다" in page.text
            assert count(application, QuizAnswer) == 1
    finally:
        state_of(application).database.dispose()


# --- issue 14: resume, breakdown, time limit ----------------------------------------------------------------


def answer_plainly(client: TestClient, lang: str, attempt_id: str, drawn: DrawnView, *, right: bool) -> None:
    url = f"/{lang}/attempts/{attempt_id}/questions/{drawn.id}"
    response = client.post(url, data=answer_form(drawn, right=right), headers=SAME_ORIGIN, follow_redirects=False)
    assert response.status_code == 303, response.text


def test_an_unfinished_attempt_is_offered_again_with_its_count(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client, "ko")
    questions = attempt_of(app, client, attempt_id).questions
    for drawn in questions[:3]:
        answer_plainly(client, "ko", attempt_id, drawn, right=True)
    landing = parse(client.get("/ko/guides/nvlink/quiz").text)
    resume = [a for a in landing.find("a") if a.get("href") == f"/ko/attempts/{attempt_id}"]
    assert len(resume) == 1
    assert f"이어서 풀기({len(questions)}문제 중 3문제 완료)" in landing.text
    assert "새로 응시하기" in landing.text  # beside it, a new attempt
    english = client.get("/en/guides/nvlink/quiz").text
    assert f"Continue your attempt (3 of {len(questions)} answered)" in english
    assert "Start a new attempt" in english
    # Finished, it is no longer offered: the landing offers a new try and the review instead.
    client.post(f"/ko/attempts/{attempt_id}/finish", headers=SAME_ORIGIN)
    after = client.get("/en/guides/nvlink/quiz").text
    assert f'href="/en/attempts/{attempt_id}"' not in after
    assert "Continue your attempt" not in after
    assert f'href="/en/attempts/{attempt_id}/review"' in after


def test_a_timed_out_exam_attempt_is_not_offered(database_url: str, make_settings: SettingsFactory) -> None:
    clock = Clock()
    application = quiz_app(database_url, make_settings, clock=clock)
    try:
        with TestClient(application) as client:
            attempt_id = start(client, "en", "/en/exam")
            drawn = attempt_of(application, client, attempt_id).questions[0]
            answer_plainly(client, "en", attempt_id, drawn, right=False)
            waiting = client.get("/en/exam").text
            assert "Continue your attempt (1 of 10 answered)" in waiting
            assert "Ends at" in waiting  # when the open attempt ends
            assert 'action="/en/exam"' not in waiting  # the start policy is unchanged: 10 minutes between starts
            assert "Please wait 10 minutes before starting the exam again." in waiting
            clock.advance(minutes=39)
            open_landing = client.get("/en/exam").text
            assert "Continue your attempt (1 of 10 answered)" in open_landing
            assert "Start a new attempt" in open_landing
            clock.advance(minutes=2)
            closed_landing = client.get("/en/exam").text
            assert "Continue your attempt" not in closed_landing
            assert f'href="/en/attempts/{attempt_id}"' not in closed_landing
            assert 'action="/en/exam"' in closed_landing
    finally:
        state_of(application).database.dispose()


def test_the_end_of_a_timed_attempt_is_printed_in_the_learners_zone_or_utc(
    database_url: str, make_settings: SettingsFactory
) -> None:
    clock = Clock(datetime(2026, 12, 1, 5, 5, 30, tzinfo=UTC))
    application = quiz_app(database_url, make_settings, clock=clock)
    try:
        with TestClient(application) as client:
            attempt_id = start(client, "ko", "/ko/exam")
            page = client.get(f"/en/attempts/{attempt_id}").text
            timer = parse(page).find("div", id="quiz-timer")
            assert len(timer) == 1
            assert timer[0]["data-seconds-left"] == "2400"
            assert "role" not in timer[0]
            assert "aria-live" not in timer[0]
            assert parse(page).find("p", id="quiz-timer-status", role="status")  # where 5 and 1 minute are said
            assert '<time class="quiz-end-time" datetime="2026-12-01T05:45:30+00:00">05:45 UTC</time>' in page
            assert "40 minutes left" in page
            client.cookies.set("tz", "Asia/Seoul")  # what quiz.js stores once it has run
            seoul = client.get(f"/ko/attempts/{attempt_id}").text
            assert ">14:45(Asia/Seoul 기준)</time>에 끝납니다" in seoul
            client.cookies.set("tz", "../../etc/passwd")
            assert ">05:45 UTC</time>" in client.get(f"/en/attempts/{attempt_id}").text
            clock.advance(minutes=10)
            assert 'data-seconds-left="1800"' in client.get(f"/en/attempts/{attempt_id}").text
        with TestClient(application) as client:  # a practice quiz has no time limit
            practice = client.get(f"/en/attempts/{start(client)}").text
            assert 'id="quiz-timer"' not in practice
    finally:
        state_of(application).database.dispose()


def test_the_result_names_the_misconceptions_and_tells_partly_right_options_apart(
    app: FastAPI, client: TestClient
) -> None:
    attempt_id = start(client)
    attempt = attempt_of(app, client, attempt_id)
    numeric = next(drawn for drawn in attempt.questions if drawn.type == "numeric")
    answer_plainly(client, "en", attempt_id, numeric, right=False)  # a factor of 8: bits versus bytes
    multiple = next(
        d for d in attempt.questions if d.type == "multiple" and 1 < len(d.question.correct_indexes) < len(d.options)
    )
    right = [s.token for s in multiple.options if s.option.correct]
    wrong = [s.token for s in multiple.options if not s.option.correct]
    url = f"/en/attempts/{attempt_id}/questions/{multiple.id}"
    client.post(url, data={"tokens": [right[0], wrong[0]]}, headers=SAME_ORIGIN)
    client.post(f"/en/attempts/{attempt_id}/finish", headers=SAME_ORIGIN)
    result = client.get(f"/en/attempts/{attempt_id}/result").text
    assert "Misconceptions your answers showed" in result
    assert '<span class="quiz-tag">Bits versus bytes</span> shown in 1 answer' in result
    assert f'href="/en/guides/{numeric.question.chapter}#{numeric.question.section}"' in result
    assert "Partly right" in result
    assert f'href="/en/attempts/{attempt_id}/review#answer-{multiple.id}"' in result
    verdicts = re.findall(r'<li class="quiz-judged-([a-z-]+)">', result)
    assert verdicts.count("chosen-right") == 1
    assert verdicts.count("chosen-wrong") == 1
    assert verdicts.count("missed") == len(right) - 1
    assert verdicts.count("avoided") == len(wrong) - 1
    korean = client.get(f"/ko/attempts/{attempt_id}/result").text
    assert "맞는 보기 · 선택하지 않음" in korean
    assert "답안에 드러난 흔한 오해" in korean


def test_the_exam_result_gives_the_score_and_chapters_but_no_verdict(app: FastAPI, client: TestClient) -> None:
    attempt_id = start(client, "en", "/en/exam")
    attempt = attempt_of(app, client, attempt_id)
    for drawn in attempt.questions:
        if drawn.type == "multiple":  # partly right: practice would tell the options apart
            right = [s.token for s in drawn.options if s.option.correct]
            wrong = [s.token for s in drawn.options if not s.option.correct]
            url = f"/en/attempts/{attempt_id}/questions/{drawn.id}"
            partly = [right[0], wrong[0]] if wrong else right[:1]  # all right: choosing one of them is partly
            client.post(url, data={"tokens": partly}, headers=SAME_ORIGIN)
        else:
            answer_plainly(client, "en", attempt_id, drawn, right=False)
    client.post(f"/en/attempts/{attempt_id}/finish", headers=SAME_ORIGIN)
    result = client.get(f"/en/attempts/{attempt_id}/result").text
    assert "0 of 10 correct" in result
    assert "Sections to re-read" in result
    for chapter in {drawn.question.chapter for drawn in attempt.questions}:
        assert f'href="/en/guides/{chapter}#' in result
    assert "quiz-tag" not in result  # no misconception is named
    assert "quiz-judged" not in result  # no option is told right or wrong before the exam is passed
    assert "Review your answers" not in result
    assert "The final exam does not say which answers were right" in result
    review = client.get(f"/en/attempts/{attempt_id}/review", follow_redirects=False)
    assert review.status_code == 303
    assert review.headers["location"] == f"/en/attempts/{attempt_id}/result"
