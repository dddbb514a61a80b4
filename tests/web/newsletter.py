"""Helpers of the newsletter's web tests: the app on a test database, its outbox, links out of mails."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from app.newsletter.service import SignupPolicy
from tests.conftest import UNLIMITED, SettingsFactory
from tests.web.quizzes import quiz_app, state_of

CONFIRM_LINK = re.compile(r"http://testserver/newsletter/confirm/[A-Za-z0-9_-]{43}")


@dataclass
class Clock:
    now: datetime = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def newsletter_app(
    database_url: str,
    make_settings: SettingsFactory,
    clock: Callable[[], datetime] | None = None,
    signup_policy: SignupPolicy | None = None,
    **settings: Any,
) -> FastAPI:
    application = quiz_app(database_url, make_settings, clock=clock, **settings)
    state_of(application).newsletter.policy = signup_policy or SignupPolicy(UNLIMITED, UNLIMITED)
    return application


def outbox_of(application: FastAPI) -> Path:
    return state_of(application).settings.resolved_outbox_dir


def mails(outbox: Path, to: str | None = None) -> list[EmailMessage]:
    found = []
    for path in sorted(outbox.glob("*.eml")) if outbox.is_dir() else []:
        parsed = message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        if to is None or parsed["To"] == to:
            found.append(parsed)
    return found


def text_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def confirm_link(message: EmailMessage) -> str:
    match = CONFIRM_LINK.search(text_of(message))
    assert match is not None, text_of(message)
    return match.group(0).removeprefix("http://testserver")


def unsubscribe_path(message: EmailMessage) -> str:
    header = str(message["List-Unsubscribe"])
    assert header.startswith("<http://testserver/newsletter/unsubscribe/"), header
    assert header.endswith(">"), header
    return header[1:-1].removeprefix("http://testserver")
