"""Twenty parallel claims against two real uvicorn worker processes, on SQLite and PostgreSQL: one certificate,
and never a 500 or a half-issued one."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from itsdangerous import URLSafeSerializer
from sqlalchemy import func, select

import app.models
from app import migrations
from app.certificates.models import Certificate, CertificateClaim
from app.context import RequestContext
from app.db import Database
from tests.servers import UVICORN, running_server
from tests.unit.certificates.helpers import revoked_in_list
from tests.unit.quiz.helpers import quiz_service
from tests.web.quizzes import right_answer

CLIENTS = 20
SECRET = "race-" + "c" * 40
SAME_ORIGIN = {"Sec-Fetch-Site": "same-origin"}


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[tuple[str, Database]]:
    database = Database.from_url(database_url)
    migrations.upgrade(database)
    environment = {"SECRET_KEY": SECRET, "DATABASE_URL": database_url}
    try:
        with running_server(UVICORN, tmp_path, environment, ("--workers", "2", "--log-level", "warning")) as url:
            yield url, database
    finally:
        database.dispose()
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log


def passed_learner(base_url: str, database: Database) -> httpx.Cookies:
    """A learner who passed the final exam over HTTP, answers computed from the bank (as tests may)."""
    with httpx.Client(base_url=base_url, timeout=30) as client:
        started = client.post("/api/v1/quizzes/exam/attempts")
        assert started.status_code == 201, started.text
        learner = URLSafeSerializer(SECRET, salt="learner-id").loads(client.cookies["learner"])
        context = RequestContext(learner, True, "en", "test", datetime.now(UTC))
        attempt = asyncio.run(quiz_service(database).attempt(context, started.json()["attempt_id"]))
        for drawn in attempt.questions:
            assert client.post(f"/api/v1/attempts/{attempt.id}/answers", json=right_answer(drawn)).status_code == 200
        assert client.post(f"/api/v1/attempts/{attempt.id}/finish").json()["passed"]
        return client.cookies


def race(
    count: int, call: Callable[[httpx.Client, int], httpx.Response], cookies: httpx.Cookies, base_url: str
) -> list[httpx.Response]:
    barrier = threading.Barrier(count)
    responses: list[httpx.Response] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run(number: int) -> None:
        try:
            with httpx.Client(base_url=base_url, cookies=cookies, timeout=60) as client:
                barrier.wait()
                response = call(client, number)
            with lock:
                responses.append(response)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(number,)) for number in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return responses


def count_rows(database: Database, table: type[app.models.Base]) -> int:
    with database.session() as session:
        return int(session.scalar(select(func.count()).select_from(table)) or 0)


def test_parallel_claims_give_one_certificate(server: tuple[str, Database]) -> None:
    base_url, database = server
    cookies = passed_learner(base_url, database)

    def claim(client: httpx.Client, _number: int) -> httpx.Response:
        return client.post("/en/certificate", data={"name": "김민준"}, headers=SAME_ORIGIN)

    responses = race(CLIENTS, claim, cookies, base_url)
    assert [response.status_code for response in responses] == [303] * CLIENTS
    assert len({response.headers["location"] for response in responses}) == 1
    assert count_rows(database, Certificate) == count_rows(database, CertificateClaim) == 1


def test_parallel_name_corrections_leave_exactly_one_active_certificate(server: tuple[str, Database]) -> None:
    base_url, database = server
    cookies = passed_learner(base_url, database)

    def claim(client: httpx.Client, number: int) -> httpx.Response:
        return client.post("/en/certificate", data={"name": f"Ada Lovelace {number % 4}"}, headers=SAME_ORIGIN)

    responses = race(CLIENTS, claim, cookies, base_url)
    assert {response.status_code for response in responses} <= {303, 429}
    with database.session() as session:
        rows = list(session.scalars(select(Certificate)))
        claims = list(session.scalars(select(CertificateClaim)))
    active = [row for row in rows if row.revoked_at is None]
    assert len(claims) == 1
    assert [row.id for row in active] == [claims[0].certificate_id]
    assert len({(row.status_list, row.status_index) for row in rows}) == len(rows)
    with httpx.Client(base_url=base_url) as client:
        listed = client.get("/status/1").content
        for row in rows:
            assert revoked_in_list(listed, row.status_index) == (row.revoked_at is not None)
            assert row.revoked_at is None or row.replaced_by is not None
