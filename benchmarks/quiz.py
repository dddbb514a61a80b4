"""Answer submissions per second (write + grade + feedback fragment) against a constant-bytes endpoint.

Both run on one real uvicorn with every middleware; they alternate round by round. Each answer needs a question
that has not been answered yet, so enough attempts are started first. The rate limiter still runs (two counter
upserts per answer) with limits raised so that it does not refuse the benchmark's single learner. Run:
    .venv/bin/python benchmarks/quiz.py                      # SQLite in a temporary folder
    .venv/bin/python benchmarks/quiz.py postgresql+psycopg://user:password@host/db   # an empty database
Target (issue: quizzes): answer submission >= 0.5 of the constant-bytes endpoint on SQLite.
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from collections import deque
from pathlib import Path

import httpx
from fastapi.responses import HTMLResponse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import migrations
from app.config import Environment, Settings
from app.db import Database
from app.main import create_app
from app.quiz.ratelimit import Limit
from app.quiz.service import QuizPolicy
from benchmarks._server import compare_in_turns, print_figures, serve

ROUNDS = 12
PER_ROUND = 200
WARM_UP = 50
UNLIMITED = QuizPolicy(*(Limit(10**9, 60) for _ in range(4)))


def main() -> None:
    database_url = sys.argv[1] if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory() as var_dir:
        if database_url:
            database = Database.from_url(database_url)
            migrations.upgrade(database)
            database.dispose()
        settings = Settings(env=Environment.TEST, var_dir=Path(var_dir), secret_key="b" * 40,
                            database_url=database_url)
        app = create_app(settings)
        app.state.interconnects = dataclasses.replace(app.state.interconnects, quiz_policy=UNLIMITED)
        with serve(app) as base_url, httpx.Client(base_url=base_url) as client:
            # Starting an attempt closes the learner's previous one, so every attempt gets its own learner; the
            # measured requests carry that learner's cookie and CSRF token, as a browser would.
            pending: deque[tuple[str, dict[str, str], dict[str, str]]] = deque()
            needed = WARM_UP + ROUNDS * PER_ROUND
            while len(pending) < needed:
                with httpx.Client(base_url=base_url) as learner:
                    page = learner.get("/en/guides/nvlink/quiz").text
                    token = page.split('name="csrf_token" value="')[1].split('"')[0]
                    attempt = learner.post("/api/v1/quizzes/nvlink/attempts").json()
                    headers = {"HX-Request": "true", "X-CSRF-Token": token,
                               "Cookie": f"learner={learner.cookies['learner']}"}
                for question in attempt["questions"]:
                    url = f"/en/attempts/{attempt['attempt_id']}/questions/{question['id']}"
                    form = ({"value": f"1 {question['unit']}"} if question["type"] == "numeric"
                            else {"tokens": question["options"][0]["token"]})
                    pending.append((url, form, headers))
            sample_url, sample_form, sample_headers = pending.popleft()
            sample = client.post(sample_url, data=sample_form, headers=sample_headers)
            sample.raise_for_status()
            constant = sample.content
            constant_headers = sample_headers

            @app.post("/__benchmark/constant")
            async def constant_bytes() -> HTMLResponse:
                return HTMLResponse(constant)

            def answer(c: httpx.Client) -> httpx.Response:
                url, form, headers = pending.popleft()
                response = c.post(url, data=form, headers=headers)
                assert response.status_code == 200, response.text
                return response

            figures = compare_in_turns(client, {
                "answer (write + grade + fragment)": answer,
                "constant bytes (same size)": lambda c: c.post("/__benchmark/constant", data={"x": "1"},
                                                               headers=constant_headers),
            }, rounds=ROUNDS, per_round=PER_ROUND)
        backend = "PostgreSQL" if database_url else "SQLite"
        print(f"{backend}; fragment size: {len(constant):,} bytes; {ROUNDS} rounds of {PER_ROUND}; keep-alive, "
              "one connection")
        print_figures(figures, baseline="constant bytes (same size)")


if __name__ == "__main__":
    main()
