"""Many clients racing on one attempt, against real uvicorn worker processes on SQLite and PostgreSQL:
exactly one stored answer, exactly one finalisation, and never a 500."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

import app.models  # noqa: F401  (every table)
from app import migrations
from app.db import Database
from app.quiz.models import QuizAnswer, QuizAttempt
from tests.servers import UVICORN, running_server

CLIENTS = 24


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two uvicorn worker processes sharing the database: the race crosses processes, not only threads."""
    database = Database.from_url(database_url)
    migrations.upgrade(database)
    database.dispose()
    environment = {"SECRET_KEY": "race-" + "r" * 40, "DATABASE_URL": database_url}
    with running_server(UVICORN, tmp_path, environment, ("--workers", "2", "--log-level", "warning")) as base_url:
        yield base_url, database_url
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log


def race(count: int, call: Callable[[httpx.Client], httpx.Response], cookies: httpx.Cookies,
         base_url: str) -> list[httpx.Response]:
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
        return client.post(f"/api/v1/attempts/{attempt_id}/answers",
                           json={"question_id": question["id"], "tokens": [choice]})

    answers = race(CLIENTS, answer, cookies, base_url)
    statuses = sorted(response.status_code for response in answers)
    assert statuses == [200] + [409] * (CLIENTS - 1)
    winner = next(response.json() for response in answers if response.status_code == 200)
    for response in answers:
        if response.status_code == 409:
            assert response.json()["answer"] == winner

    finishes = race(CLIENTS, lambda client: client.post(f"/api/v1/attempts/{attempt_id}/finish"), cookies,
                    base_url)
    assert {response.status_code for response in finishes} == {200}
    assert len({response.text for response in finishes}) == 1

    database = Database.from_url(database_url)
    try:
        with database.read_session() as session:
            stored = session.scalar(select(func.count()).select_from(QuizAnswer)
                                    .where(QuizAnswer.attempt_id == attempt_id))
            row = session.get(QuizAttempt, attempt_id)
    finally:
        database.dispose()
    assert stored == 1
    assert row is not None
    assert row.state == "finished"
    assert row.correct_count == (1 if winner["correct"] else 0)
