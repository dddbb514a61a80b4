"""Signing up for the newsletter in Chromium, with JavaScript (HTMX swaps the form for the confirmation) and
without (the form posts and the page is rendered again), then confirming from the mail's link; axe-core clean
(with JavaScript: axe runs as page script)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.browser import describe, expect_http_errors, open_page, run_axe
from tests.servers import INTERCONNECTS_SERVE, running_server

SECRET = "e2e-newsletter-" + "k" * 40


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, live_server: str) -> Iterator[tuple[str, Path]]:
    """A server of its own, whose outbox (VAR_DIR/outbox) the test reads the mails from."""
    var_dir = tmp_path_factory.mktemp("newsletter-var")
    with running_server(INTERCONNECTS_SERVE, var_dir, {"SECRET_KEY": SECRET}) as base_url:
        yield base_url, var_dir / "outbox"


def mail_to(outbox: Path, address: str) -> EmailMessage:
    found = []
    for path in outbox.glob("*.eml"):
        parsed = message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        if parsed["To"] == address:
            found.append(parsed)
    assert len(found) == 1, f"{len(found)} mails to {address}"
    return found[0]


def confirm_from_mail(page: Page, base_url: str, message: EmailMessage, heading: str) -> None:
    body = message.get_body(("plain",))
    assert body is not None
    match = re.search(re.escape(base_url) + r"/newsletter/confirm/[A-Za-z0-9_-]{43}", str(body.get_content()))
    assert match is not None
    page.goto(match.group(0))
    button = page.locator("main form button[type=submit]")
    expect(button).to_be_visible()
    button.click()
    expect(page.locator("h1")).to_have_text(heading)


def test_with_javascript_the_chapter_form_swaps_in_the_confirmation(browser: Browser, server: tuple[str, Path]) -> None:
    base_url, outbox = server
    with open_page(browser) as page:
        expect_http_errors(page, 422)  # the refused address's answer, whose message is the point
        chapter = f"{base_url}/en/guides/nvlink"
        page.goto(chapter)
        form = page.locator("#newsletter-signup")
        form.scroll_into_view_if_needed()
        page.fill("#newsletter-email", "not an address")
        page.locator("#newsletter-signup button[type=submit]").click()
        expect(page.locator("#newsletter-error")).to_contain_text("Enter a valid e-mail address")
        expect(page.locator("#newsletter-email")).to_have_attribute("aria-invalid", "true")
        assert page.url == chapter  # swapped in place, no navigation

        page.fill("#newsletter-email", "js-reader@example.com")
        page.select_option("#newsletter-language", "ko")
        page.locator("#newsletter-signup button[type=submit]").click()
        expect(page.locator("#newsletter-signup [role=status]")).to_contain_text("Check your inbox")
        assert page.url == chapter
        violations = run_axe(page)
        assert violations == [], describe(violations)

        message = mail_to(outbox, "js-reader@example.com")
        assert "구독을 확인해 주세요" in str(message["Subject"])
        confirm_from_mail(page, base_url, message, "구독이 확인되었습니다")


def test_without_javascript_the_form_posts_and_the_page_answers(browser: Browser, server: tuple[str, Path]) -> None:
    base_url, outbox = server
    with open_page(browser, language="ko", javascript=False) as page:
        expect_http_errors(page, 422)  # the refused address's page
        page.goto(f"{base_url}/ko/")
        page.fill("#newsletter-email", "nojs-reader@example")
        page.locator("#newsletter-signup button[type=submit]").click()
        expect(page.locator("#newsletter-error")).to_contain_text("올바른 이메일 주소를 입력해 주세요")
        assert "/newsletter" in page.url
        expect(page.locator("#newsletter-email")).to_have_value("nojs-reader@example")  # what was typed stays

        page.fill("#newsletter-email", "nojs-reader@example.com")
        page.locator("#newsletter-signup button[type=submit]").click()
        expect(page.locator("#newsletter-signup [role=status]")).to_contain_text("받은편지함을 확인해 주세요")
        # No axe here: it runs as page script, which this context has switched off (the same form is checked
        # with JavaScript above).

        message = mail_to(outbox, "nojs-reader@example.com")
        assert message["Content-Language"] == "ko"
        confirm_from_mail(page, base_url, message, "구독이 확인되었습니다")
