"""The database goes away (PostgreSQL's database dropped; SQLite's file replaced by something it cannot open):
what needs no database keeps working, the health check says 503, a returning learner's home page falls back to
the anonymous one, and everything that reads or writes learner data answers 503 with Retry-After and a message
in the learner's language. When the database is back, everything recovers without a restart."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx2 import Response
from markupsafe import escape
from sqlalchemy import make_url, text

from app.quiz.messages import UNAVAILABLE
from tests.conftest import SettingsFactory, _Templates
from tests.web.html import parse
from tests.web.quizzes import HX, answer_form, attempt_of, quiz_app, start_page_attempt, state_of

SAME_ORIGIN = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}


@dataclass
class Outage:
    app: FastAPI
    take_down: Callable[[], None]
    bring_back: Callable[[], None]


def _sqlite_outage(url: str) -> tuple[Callable[[], None], Callable[[], None]]:
    path = Path(make_url(url).database or "")
    files = [Path(f"{path}{suffix}") for suffix in ("", "-wal", "-shm")]

    def take_down() -> None:
        for file in files:
            if file.exists():
                file.rename(f"{file}.away")
        path.mkdir()  # a directory where the database was: SQLite cannot open it (chmod would not stop root)

    def bring_back() -> None:
        path.rmdir()
        for file in files:
            if Path(f"{file}.away").exists():
                Path(f"{file}.away").rename(file)

    return take_down, bring_back


def _postgres_outage(url: str, templates: _Templates) -> tuple[Callable[[], None], Callable[[], None]]:
    assert templates.postgres is not None
    postgres = templates.postgres
    name = make_url(url).database or ""

    def take_down() -> None:
        postgres.drop(name)  # WITH (FORCE): the app's pooled connections are cut too

    def bring_back() -> None:  # restored (empty, at head) under the same name, as from a backup
        with postgres.admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{templates.postgres_template}"'))

    return take_down, bring_back


@pytest.fixture
def outage(database_url: str, make_settings: SettingsFactory, migrated_templates: _Templates) -> Iterator[Outage]:
    app = quiz_app(database_url, make_settings)
    database = state_of(app).database
    if database.is_sqlite:
        take_down, bring_back = _sqlite_outage(database_url)
    else:
        take_down, bring_back = _postgres_outage(database_url, migrated_templates)

    def down() -> None:
        take_down()
        # SQLite's pooled connections still hold the old file open and would keep working on it; a new process
        # (or any new connection) would not. PostgreSQL's were cut by the drop; disposing them changes nothing.
        database.dispose()

    yield Outage(app, down, bring_back)
    database.dispose()


def unavailable(app: FastAPI, lang: str) -> str:
    return state_of(app).translations[lang].gettext(UNAVAILABLE)


def assert_unavailable_page(app: FastAPI, response: Response, lang: str) -> None:
    assert response.status_code == 503, (response.request.url, response.status_code)
    assert int(response.headers["retry-after"]) > 0
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["content-type"].startswith("text/html")
    assert f'<html lang="{lang}"' in response.text
    assert str(escape(unavailable(app, lang))) in response.text


def assert_unavailable_json(app: FastAPI, response: Response, lang: str) -> None:
    assert response.status_code == 503, (response.request.url, response.status_code)
    assert int(response.headers["retry-after"]) > 0
    assert response.headers["cache-control"] == "no-store"
    assert response.json() == {"detail": unavailable(app, lang)}


def test_without_the_database_what_needs_none_works_and_the_rest_says_503(outage: Outage) -> None:
    app = outage.app
    with TestClient(app) as learner:
        # A returning learner, with a finished attempt and one still open, before the database goes away.
        done = start_page_attempt(learner, "/en/guides/nvlink/quiz", **SAME_ORIGIN)
        drawn = attempt_of(app, learner, done).questions[0]
        learner.post(f"/en/attempts/{done}/questions/{drawn.id}", data=answer_form(drawn), headers=SAME_ORIGIN)
        learner.post(f"/en/attempts/{done}/finish", headers=SAME_ORIGIN)
        open_id = start_page_attempt(learner, "/en/exam", **SAME_ORIGIN)
        question = attempt_of(app, learner, open_id).questions[0]
        assert 'id="course-progress"' in learner.get("/en/").text
        static = parse(learner.get("/en/").text).stylesheets()[0]

        outage.take_down()

        assert learner.get("/healthz").status_code == 503
        assert learner.get("/healthz").json() == {"status": "error", "database": "unreachable"}
        for path in (
            "/en/guides/nvlink",
            "/ko/guides/why-interconnects",
            "/en/lab",
            "/ko/lab/topology",
            "/sitemap.xml",
            "/robots.txt",
            static,
            "/static/js/site.js",
            "/api/v1/links",
            "/api/v1/systems",
            "/api/v1/quizzes?lang=ko",
            "/api/v1/simulate/collective?op=all_reduce&message_bytes=1048576",
            "/api/v1/simulate/sweep?op=all_gather&min_bytes=1024&max_bytes=1048576",
            "/openapi.json",
        ):
            assert learner.get(path).status_code == 200, path
        assert learner.get("/en/lab/topology", headers=HX).status_code == 200

        for lang, start_label in (("en", "Start the course"), ("ko", "강좌 시작하기")):
            home = learner.get(f"/{lang}/")
            assert home.status_code == 200
            assert start_label in home.text  # the anonymous home page ...
            assert 'id="course-progress"' not in home.text
            notice = (
                state_of(app)
                .translations[lang]
                .gettext("Your progress cannot be shown right now; the chapters are all here.")
            )
            assert str(escape(notice)) in home.text  # ... saying why the progress is missing

            answer = f"/{lang}/attempts/{open_id}/questions/{question.id}"
            for response in (
                learner.get(f"/{lang}/exam"),
                learner.get(f"/{lang}/guides/nvlink/quiz"),
                learner.get(f"/{lang}/attempts/{open_id}"),
                learner.get(f"/{lang}/attempts/{done}/result"),
                learner.get(f"/{lang}/attempts/{done}/review"),
                learner.post(f"/{lang}/exam", headers=SAME_ORIGIN),
                learner.post(f"/{lang}/guides/nvlink/quiz", headers=SAME_ORIGIN),
                learner.post(answer, data=answer_form(question), headers=SAME_ORIGIN),
                learner.post(answer, data=answer_form(question), headers=SAME_ORIGIN | HX),
                learner.post(f"/{lang}/attempts/{open_id}/finish", headers=SAME_ORIGIN),
            ):
                assert_unavailable_page(app, response, lang)
            for response in (
                learner.post(f"/api/v1/quizzes/exam/attempts?lang={lang}"),
                learner.post(
                    f"/api/v1/attempts/{open_id}/answers?lang={lang}",
                    json={"question_id": question.id, "value": "1 ms"},
                ),
                learner.post(f"/api/v1/attempts/{open_id}/finish?lang={lang}"),
                learner.get(f"/api/v1/attempts/{open_id}?lang={lang}"),
            ):
                assert_unavailable_json(app, response, lang)

        with TestClient(app) as newcomer:  # a first visit needs no database either
            assert newcomer.get("/ko/").status_code == 200
            assert_unavailable_page(app, newcomer.get("/ko/exam"), "ko")

        outage.bring_back()

        assert learner.get("/healthz").json() == {"status": "ok", "database": "ok"}
        assert learner.get("/en/exam").status_code == 200
        restarted = start_page_attempt(learner, "/en/guides/nvlink/quiz", **SAME_ORIGIN)
        again = attempt_of(app, learner, restarted).questions[0]
        answered = learner.post(
            f"/en/attempts/{restarted}/questions/{again.id}", data=answer_form(again), headers=SAME_ORIGIN | HX
        )
        assert answered.status_code == 200
        assert learner.post("/api/v1/quizzes/nvlink/attempts").status_code == 201
        assert 'id="course-progress"' in learner.get("/en/").text
        if state_of(app).database.is_sqlite:  # the same file came back: so did everything in it
            assert learner.get(f"/en/attempts/{done}/review").status_code == 200


def test_the_health_check_is_503_until_the_database_is_back(outage: Outage) -> None:
    with TestClient(outage.app) as client:
        assert client.get("/healthz").status_code == 200
        outage.take_down()
        for _ in range(3):  # every check tries again; none is cached
            response = client.get("/healthz")
            assert response.status_code == 503
            assert response.headers["cache-control"] == "no-store"
        assert client.head("/healthz").status_code == 503
        outage.bring_back()
        assert client.get("/healthz").status_code == 200


def test_an_app_starts_and_serves_chapters_while_sqlite_is_unreachable(
    make_settings: SettingsFactory, tmp_path: Path
) -> None:
    database_file = tmp_path / "later.sqlite3"
    app = quiz_app(f"sqlite:///{database_file}", make_settings)
    database = state_of(app).database
    database.dispose()
    for file in tmp_path.glob("later.sqlite3*"):
        file.unlink()
    database_file.mkdir()
    try:
        with TestClient(app) as client:
            assert client.get("/healthz").status_code == 503
            assert client.get("/en/guides/nvlink").status_code == 200
            assert_unavailable_json(app, client.post("/api/v1/quizzes/nvlink/attempts?lang=ko"), "ko")
    finally:
        database.dispose()
        shutil.rmtree(database_file)
