"""Helpers of the deployment tests (not a test module): clients of the stack through nginx, what the app hosts
logged, and the bank's right answers (as only tests may know them)."""

from __future__ import annotations

import asyncio
import re
import ssl
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from itsdangerous import URLSafeSerializer

from app.content import load_course
from app.context import RequestContext
from app.db import Database
from app.quiz.bank import load_quizzes
from app.quiz.readmodels import AttemptView
from app.quiz.service import QuizService
from deploy.local_stack import Stack
from tests.web.quizzes import right_answer

PROJECT_ROOT = Path(__file__).resolve().parents[2]
LEARNER_COOKIE = "__Host-learner"  # over https the app's cookies carry the __Host- prefix
CERTIFICATE_LOCATION = re.compile(r"/c/([0-9A-Z]{26})\?lang=en")
HIDDEN_INPUT = re.compile(r"<input[^>]*type=\"hidden\"[^>]*>")
ATTRIBUTE = re.compile(r"(name|value)=\"([^\"]*)\"")


@dataclass
class Site:
    """The stack as its visitors and its operator see it."""

    stack: Stack

    @property
    def url(self) -> str:
        return self.stack.url

    def tls(self) -> ssl.SSLContext:
        """Trusts exactly the stack's self-signed certificate: the TLS nginx terminates is checked, not waived."""
        return ssl.create_default_context(cafile=str(Path(self.stack.directory) / "tls" / "cert.pem"))

    def client(self, source: str = "127.0.0.1", timeout_s: float = 60) -> httpx.Client:
        """A visitor connecting from `source` (any 127.0.0.0/8 address is this machine's), with a cookie jar."""
        transport = httpx.HTTPTransport(verify=self.tls(), local_address=source)
        return httpx.Client(base_url=self.url, transport=transport, timeout=timeout_s)

    def browser_headers(self) -> dict[str, str]:
        """What a browser sends with a same-origin form post."""
        return {"Origin": self.url, "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "navigate"}

    def post_form(self, client: httpx.Client, form_page: str, action: str, fields: dict[str, str]) -> httpx.Response:
        """Post a form as a browser would: from its page, with the page's hidden fields (a CSRF token, if any)."""
        page = client.get(form_page)
        data = hidden_fields(page.text) | fields
        return client.post(action, data=data, headers=self.browser_headers())

    def app_requests(self, request_line: str) -> dict[str, int]:
        """How many times each host's access log has `request_line` (e.g. 'GET /en/ HTTP/1.1'): the app's own count.

        uvicorn writes the line when the response starts (unbuffered: PYTHONUNBUFFERED=1), so a response the
        test has received is already counted."""
        quoted = f'"{request_line}"'
        return {host.name: Path(host.log).read_text(errors="replace").count(quoted) for host in self.stack.hosts}


def hidden_fields(html: str) -> dict[str, str]:
    fields = {}
    for tag in HIDDEN_INPUT.findall(html):
        attributes = dict(ATTRIBUTE.findall(tag))
        if "name" in attributes:
            fields[attributes["name"]] = attributes.get("value", "")
    return fields


@dataclass
class Oracle:
    """The bank's right answers for an attempt, read from the stack's database with the stack's secret."""

    quiz: QuizService
    database: Database
    secret_key: str

    @classmethod
    def of(cls, stack: Stack) -> Oracle:
        content_dir = PROJECT_ROOT / "content"
        course = load_course(content_dir)
        database = Database.from_url(stack.database_url)
        quiz = QuizService(database, load_quizzes(content_dir, course))
        return cls(quiz, database, stack.environment()["SECRET_KEY"])

    def close(self) -> None:
        self.database.dispose()

    def learner(self, client: httpx.Client) -> str:
        cookie = client.cookies.get(LEARNER_COOKIE)
        assert cookie is not None, "the client has no learner cookie yet"
        learner_id: str = URLSafeSerializer(self.secret_key, salt="learner-id").loads(cookie)
        return learner_id

    def attempt(self, client: httpx.Client, attempt_id: str) -> AttemptView:
        context = RequestContext(self.learner(client), True, "en", "test", datetime.now(UTC))
        return asyncio.run(self.quiz.attempt(context, attempt_id))

    def right_answers(self, client: httpx.Client, attempt_id: str) -> list[dict[str, Any]]:
        return [right_answer(drawn) for drawn in self.attempt(client, attempt_id).questions]


def pass_exam(client: httpx.Client, oracle: Oracle, lang: str = "en") -> str:
    """Start the final exam through the API, answer every question right, finish; the attempt's id."""
    started = client.post(f"/api/v1/quizzes/exam/attempts?lang={lang}")
    assert started.status_code == 201, started.text
    attempt_id: str = started.json()["attempt_id"]
    for answer in oracle.right_answers(client, attempt_id):
        answered = client.post(f"/api/v1/attempts/{attempt_id}/answers", json=answer)
        assert answered.status_code == 200, answered.text
    finished = client.post(f"/api/v1/attempts/{attempt_id}/finish")
    assert finished.json() == {"score_percent": 100, "passed": True}, finished.text
    return attempt_id
