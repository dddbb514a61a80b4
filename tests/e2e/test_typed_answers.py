"""Typed answers (issue 27, item 6), in Chromium with real keys, with and without JavaScript: a refused answer
keeps what was typed, a number that cannot be read is called a number problem (not a unit problem), a bare
number is read in the question's unit, and microseconds are written µs in the field's suffix and the feedback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.browser import describe, expect_http_errors, open_page, run_axe, save_screenshot, type_over

NUMBER_PROBLEM = {
    "en": "That number cannot be read: write it with one decimal point at most",
    "ko": "숫자를 읽을 수 없습니다. 소수점은 하나까지만 쓰십시오",
}
MALFORMED = "1,000.5.3"


def microsecond_question(page: Page) -> Locator:
    """The quiz's question answered in microseconds (why-interconnects has one)."""
    question = page.locator(".quiz-item", has=page.locator(".quiz-unit", has_text=re.compile(r"^µs$")))
    expect(question).to_have_count(1)
    return question


def start_quiz(page: Page, base_url: str, lang: str) -> None:
    page.goto(f"{base_url}/{lang}/guides/why-interconnects/quiz")
    page.locator(".quiz-actions button[type=submit]").click()
    expect(page).to_have_url(re.compile(rf"/{lang}/attempts/[^/?#]+$"))


@pytest.mark.parametrize(("lang", "javascript"), [("en", True), ("ko", True), ("en", False), ("ko", False)])
def test_a_typed_answer_is_kept_told_what_is_wrong_and_read_in_the_questions_unit(
    browser: Browser, live_server: str, lang: str, javascript: bool, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, javascript=javascript, width=375, height=800) as page:
        start_quiz(page, live_server, lang)
        expect(page.locator(".quiz-unit", has_text=re.compile(r"^us$"))).to_have_count(0)
        question = microsecond_question(page)
        field = question.locator("input[name=value]")
        expect_http_errors(page, 422)  # the refused answer, with JavaScript: the fragment comes back with 422
        type_over(page, field, MALFORMED)
        page.keyboard.press("Enter")
        error = question.locator(".quiz-error")
        expect(error).to_contain_text(NUMBER_PROBLEM[lang])
        expect(question.locator("input[name=value]")).to_have_value(MALFORMED)
        expect(question.locator("input[name=value]")).to_have_attribute("aria-invalid", "true")
        expect(question.locator(".quiz-feedback")).to_have_count(0)
        save_screenshot(page, screenshot_dir, f"typed-error-{lang}-{'js' if javascript else 'nojs'}", full_page=False)
        if javascript:
            violations = run_axe(page)
            assert violations == [], describe(violations)

        type_over(page, question.locator("input[name=value]"), "3")  # the unit is implied by the field
        page.keyboard.press("Enter")
        feedback = question.locator(".quiz-feedback")
        expect(feedback).to_be_visible()
        expect(question.locator(".quiz-error")).to_have_count(0)
        expect(feedback).to_contain_text("µs")
        expect(feedback).not_to_contain_text(re.compile(r"\dus\b|\d us\b"))
