"""Many clients racing on one attempt, against real uvicorn worker processes on SQLite and PostgreSQL:
exactly one stored answer, exactly one finalisation, and never a 500."""

from __future__ import annotations

import re
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, select

import app.models  # noqa: F401  (every table)
from app import migrations
from app.db import Database
from app.quiz.models import QuizAnswer, QuizAttempt
from tests.conftest import DATABASE_BACKENDS, _Templates, require_postgres
from tests.servers import UVICORN, running_server

CLIENTS = 24


@pytest.fixture(scope="module", params=DATABASE_BACKENDS)
def server(
    request: pytest.FixtureRequest, migrated_templates: _Templates, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """Two uvicorn worker processes sharing a database: the race crosses processes, not only threads. One server
    per backend for the module (starting one takes seconds); each test races on attempts of its own."""
    var_dir = tmp_path_factory.mktemp("race")
    if request.param == "sqlite":
        shutil.copyfile(migrated_templates.sqlite_file, var_dir / "race.sqlite3")
        database_url = f"sqlite:///{var_dir / 'race.sqlite3'}"
    else:
        if migrated_templates.postgres is None:
            require_postgres(None)
        assert migrated_templates.postgres is not None
        database_url = migrated_templates.postgres.create(template=migrated_templates.postgres_template)
    environment = {"SECRET_KEY": "race-" + "r" * 40, "DATABASE_URL": database_url}
    with running_server(UVICORN, var_dir, environment, ("--workers", "2", "--log-level", "warning")) as base_url:
        yield base_url, database_url
    log = (var_dir / "server.log").read_text()
    assert "Traceback" not in log, log


def race(
    count: int, call: Callable[[httpx.Client], httpx.Response], cookies: httpx.Cookies, base_url: str
) -> list[httpx.Response]:
    """`count` clients, each on its own connection, released at the same instant."""
    barrier = threading.Barrier(count)
    responses: list[httpx.Response] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run() -> None:
        try:
            with httpx.Client(base_url=base_url, cookies=cookies, timeout=30) as client:
                barrier.wait()
                response = call(client)
            with lock:
                responses.append(response)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return responses


def test_racing_answers_and_finishes_store_one_of_each(server: tuple[str, str]) -> None:
    base_url, database_url = server
    with httpx.Client(base_url=base_url) as owner:
        started = owner.post("/api/v1/quizzes/nvlink/attempts")
        assert started.status_code == 201
        attempt: dict[str, Any] = started.json()
        cookies = owner.cookies
    attempt_id = attempt["attempt_id"]
    question = next(q for q in attempt["questions"] if q["type"] == "single")
    tokens = [option["token"] for option in question["options"]]

    counter = iter(range(CLIENTS))

    def answer(client: httpx.Client) -> httpx.Response:
        choice = tokens[next(counter) % len(tokens)]  # different clients send different answers
        return client.post(
            f"/api/v1/attempts/{attempt_id}/answers", json={"question_id": question["id"], "tokens": [choice]}
        )

    answers = race(CLIENTS, answer, cookies, base_url)
    statuses = sorted(response.status_code for response in answers)
    assert statuses == [200] + [409] * (CLIENTS - 1)
    winner = next(response.json() for response in answers if response.status_code == 200)
    for response in answers:
        if response.status_code == 409:
            assert response.json()["answer"] == winner

    finishes = race(CLIENTS, lambda client: client.post(f"/api/v1/attempts/{attempt_id}/finish"), cookies, base_url)
    assert {response.status_code for response in finishes} == {200}
    assert len({response.text for response in finishes}) == 1

    database = Database.from_url(database_url)
    try:
        with database.session() as session:
            stored = session.scalar(
                select(func.count()).select_from(QuizAnswer).where(QuizAnswer.attempt_id == attempt_id)
            )
            row = session.get(QuizAttempt, attempt_id)
    finally:
        database.dispose()
    assert stored == 1
    assert row is not None
    assert row.state == "finished"
    assert row.correct_count == (1 if winner["correct"] else 0)


def _page_learner(base_url: str) -> tuple[dict[str, Any], httpx.Cookies]:
    """A learner with an attempt and their cookie, as a browser on the quiz page has them."""
    with httpx.Client(base_url=base_url) as owner:
        assert owner.get("/en/guides/nvlink/quiz").status_code == 200
        started = owner.post("/api/v1/quizzes/nvlink/attempts")
        assert started.status_code == 201
        return started.json(), owner.cookies


def test_racing_page_answers_store_one_and_show_it_to_everyone(server: tuple[str, str]) -> None:
    # The HTML route runs its SQLite transaction on the event loop and falls back to a thread when another
    # worker process holds the write lock: both ways must end in one stored answer.
    base_url, database_url = server
    attempt, cookies = _page_learner(base_url)
    question = next(q for q in attempt["questions"] if q["type"] == "single")
    tokens = [option["token"] for option in question["options"]]
    url = f"/en/attempts/{attempt['attempt_id']}/questions/{question['id']}"
    counter = iter(range(CLIENTS))

    def answer(client: httpx.Client) -> httpx.Response:
        return client.post(
            url,
            data={"tokens": tokens[next(counter) % len(tokens)]},
            headers={"HX-Request": "true", "Origin": base_url, "Sec-Fetch-Site": "same-origin"},
        )

    answers = race(CLIENTS, answer, cookies, base_url)
    assert sorted(response.status_code for response in answers) == [200] + [409] * (CLIENTS - 1)
    checked = {re.findall(r'value="([^"]+)"\s+id="option-[^"]+" checked', response.text)[0] for response in answers}
    assert len(checked) == 1  # every response shows the one stored choice

    database = Database.from_url(database_url)
    try:
        with database.session() as session:
            stored = session.scalar(
                select(func.count()).select_from(QuizAnswer).where(QuizAnswer.attempt_id == attempt["attempt_id"])
            )
    finally:
        database.dispose()
    assert stored == 1


def test_an_answer_waits_for_another_sqlite_writer_in_a_thread_while_the_server_keeps_serving(
    tmp_path: Path,
) -> None:
    database_file = tmp_path / "lock.sqlite3"
    database = Database.from_url(f"sqlite:///{database_file}")
    migrations.upgrade(database)
    database.dispose()
    environment = {"SECRET_KEY": "lock-" + "l" * 40, "DATABASE_URL": f"sqlite:///{database_file}"}
    with running_server(UVICORN, tmp_path, environment, ("--log-level", "warning")) as base_url:
        attempt, cookies = _page_learner(base_url)
        question = next(q for q in attempt["questions"] if q["type"] == "single")
        url = f"/en/attempts/{attempt['attempt_id']}/questions/{question['id']}"
        holder = sqlite3.connect(database_file, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another writer (another process, say) holds the lock
        held_at = time.monotonic()
        answered: list[tuple[httpx.Response, float]] = []

        def answer() -> None:
            with httpx.Client(base_url=base_url, cookies=cookies, timeout=30) as client:
                response = client.post(
                    url,
                    data={"tokens": question["options"][0]["token"]},
                    headers={"HX-Request": "true", "Origin": base_url, "Sec-Fetch-Site": "same-origin"},
                )
            answered.append((response, time.monotonic()))

        waiting = threading.Thread(target=answer)
        waiting.start()
        with httpx.Client(base_url=base_url, cookies=cookies) as other:
            # The server has the POST and is still on it (the /metrics request counts itself as a GET) ...
            deadline = time.monotonic() + 30
            while _posts_in_progress(other) != 1:
                assert time.monotonic() < deadline, "the answer never reached the server"
                time.sleep(0.02)
            assert answered == []  # ... it waits for the lock ...
            chapter = other.get("/en/guides/nvlink", timeout=2)  # ... but not on the event loop
            health = other.get("/healthz", timeout=2)
            assert _posts_in_progress(other) == 1
        assert chapter.status_code == 200
        assert health.status_code == 200
        released_at = time.monotonic()
        holder.execute("COMMIT")
        holder.close()
        waiting.join(timeout=15)
    ((response, finished_at),) = answered
    assert response.status_code == 200, response.text
    assert "quiz-feedback" in response.text
    assert finished_at >= released_at > held_at
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log


def _posts_in_progress(client: httpx.Client) -> float:
    """The server's own count of POST requests it is handling now (its Prometheus gauge)."""
    for family in text_string_to_metric_families(client.get("/metrics", timeout=2).text):
        if family.name == "http_requests_in_progress":
            return sum(sample.value for sample in family.samples if sample.labels.get("method") == "POST")
    return 0.0
