"""Answer submissions per second (write + grade + feedback fragment) against a constant-bytes endpoint.

Both are served by one uvicorn process with every middleware; they alternate round by round. Each answer needs a
question that has not been answered yet, so enough attempts are started first. The rate limiter still runs (both
counters, in one upsert per answer) with limits raised so that it never refuses the benchmark's learners. Run:
    .venv/bin/python benchmarks/quiz.py                      # SQLite in a temporary folder
    .venv/bin/python benchmarks/quiz.py postgresql+psycopg://user:password@host/db   # an empty database
Target (issue 8): answer submission >= 0.3 of the constant-bytes endpoint on SQLite (all through SQLAlchemy).
"""

from __future__ import annotations

import sys
from collections import deque
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import migrations
from app.db import Database
from benchmarks._server import compare_in_turns, print_figures, serve, set_constant

ROUNDS = 12
PER_ROUND = 200
WARM_UP = 50


def main() -> None:
    database_url = sys.argv[1] if len(sys.argv) > 1 else None
    if database_url:
        database = Database.from_url(database_url)
        migrations.upgrade(database)
        database.dispose()
    with serve(database_url) as base_url, httpx.Client(base_url=base_url) as client:
        # Starting an attempt closes the learner's previous one, so every attempt gets its own learner; the
        # measured requests carry that learner's cookie and the headers a browser's HTMX request would.
        pending: deque[tuple[str, dict[str, str], dict[str, str]]] = deque()
        needed = WARM_UP + ROUNDS * PER_ROUND + 1
        while len(pending) < needed:
            with httpx.Client(base_url=base_url) as learner:
                attempt = learner.post("/api/v1/quizzes/nvlink/attempts").json()
                headers = {
                    "HX-Request": "true",
                    "Sec-Fetch-Site": "same-origin",
                    "Cookie": f"learner={learner.cookies['learner']}",
                }
            for question in attempt["questions"]:
                url = f"/en/attempts/{attempt['attempt_id']}/questions/{question['id']}"
                form = (
                    {"value": f"1 {question['unit']}"}
                    if question["type"] == "numeric"
                    else {"tokens": question["options"][0]["token"]}
                )
                pending.append((url, form, headers))
        sample_url, sample_form, sample_headers = pending.popleft()
        sample = client.post(sample_url, data=sample_form, headers=sample_headers)
        sample.raise_for_status()
        set_constant(client, sample.content)

        def answer(c: httpx.Client) -> httpx.Response:
            url, form, headers = pending.popleft()
            response = c.post(url, data=form, headers=headers)
            assert response.status_code == 200, response.text
            return response

        figures = compare_in_turns(
            client,
            {
                "answer (write + grade + fragment)": answer,
                "constant bytes (same size)": lambda c: c.post(
                    "/__benchmark/constant", data={"x": "1"}, headers=sample_headers
                ),
            },
            rounds=ROUNDS,
            per_round=PER_ROUND,
        )
    backend = "PostgreSQL" if database_url else "SQLite"
    print(
        f"{backend}; fragment size: {len(sample.content):,} bytes; {ROUNDS} rounds of {PER_ROUND}; keep-alive, "
        "one connection"
    )
    print_figures(figures, baseline="constant bytes (same size)")


if __name__ == "__main__":
    main()
