"""The mails: both parts, in the subscriber's language, with RFC 8058 headers on issues, and no way for text to
add a header."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

from app.newsletter.mail import IssueVersion, Mailer
from app.web.i18n import load_translations

NOW = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)
TOKEN = "t" * 43


@pytest.fixture(scope="module")
def mailer() -> Mailer:
    return Mailer("https://course.example", load_translations())


def _parsed(message: EmailMessage) -> EmailMessage:
    parsed = message_from_bytes(message.as_bytes(policy=policy.SMTP), policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def _parts(message: EmailMessage) -> tuple[str, str]:
    text = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert text is not None
    assert html is not None
    return str(text.get_content()), str(html.get_content())


@pytest.mark.parametrize(("language", "phrase"), [("en", "Confirm your subscription"), ("ko", "구독을 확인해 주세요")])
def test_the_confirmation_is_text_and_html_in_the_signup_language(mailer: Mailer, language: str, phrase: str) -> None:
    message = _parsed(mailer.confirmation("ada@example.com", language, TOKEN, NOW))
    assert phrase in message["Subject"]
    assert message["Content-Language"] == language
    assert message["From"].addresses[0].addr_spec == "newsletter@course.example"
    text, html = _parts(message)
    link = f"https://course.example/newsletter/confirm/{TOKEN}"
    assert link in text
    assert f'href="{link}"' in html
    assert "List-Unsubscribe" not in message  # nothing to unsubscribe from yet


def test_an_issue_carries_one_click_unsubscribe_and_a_visible_link(mailer: Mailer) -> None:
    version = IssueVersion(
        "ko", "NVLink 5 한눈에 보기", "# 제목\n\n본문입니다.\n", "<h1>제목</h1>\n<p>본문입니다.</p>\n"
    )
    message = _parsed(mailer.issue("ada@example.com", version, "<i-1@course.example>", TOKEN, NOW))
    url = f"https://course.example/newsletter/unsubscribe/{TOKEN}"
    assert message["List-Unsubscribe"] == f"<{url}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message["Message-ID"] == "<i-1@course.example>"
    assert message["Subject"] == "NVLink 5 한눈에 보기"
    text, html = _parts(message)
    assert "본문입니다." in text
    assert url in text
    assert "클릭 한 번으로 구독 취소" in text
    assert "<h1>제목</h1>" in html
    assert f'href="{url}"' in html


def test_a_subject_with_a_line_break_cannot_add_a_header(mailer: Mailer) -> None:
    version = IssueVersion("en", "Hi\r\nBcc: victim@example.org", "Body\n", "<p>Body</p>")
    with pytest.raises(ValueError, match=r"linefeed|carriage"):
        mailer.issue("ada@example.com", version, "<i@x>", TOKEN, NOW).as_bytes()
