"""Taking the NVLink quiz in chromium, with and without JavaScript, in English and Korean; axe-core clean."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.test_browser import describe, run_axe


def answer_every_question(page: Page, questions: Locator, with_htmx: bool) -> None:
    count = questions.count()
    assert count >= 8
    for index in range(count):
        question = questions.nth(index)
        unit = question.locator(".quiz-unit")
        if unit.count():
            question.get_by_role("textbox").fill(f"1 {unit.inner_text()}")
        else:
            question.locator(".quiz-option label").first.click()
        url_before = page.url
        question.locator("button[type=submit]").click()
        question = page.locator(".quiz-item").nth(index)
        expect(question.locator(".quiz-feedback")).to_be_visible()
        expect(question.locator(".quiz-explanation")).not_to_be_empty()
        expect(question.locator("fieldset input").first).to_be_disabled()  # locked
        if with_htmx:
            assert page.url == url_before  # swapped in place, no navigation
            focused = page.evaluate("() => document.activeElement && document.activeElement.className")
            assert "quiz-feedback" in focused  # keyboard and screen-reader users land on the feedback


def check_axe(page: Page, with_javascript: bool) -> None:
    # axe runs as page script, which a context without JavaScript refuses; the same markup is checked in the
    # runs with JavaScript.
    if with_javascript:
        violations = run_axe(page)
        assert violations == [], describe(violations)


def take_quiz(page: Page, base_url: str, lang: str, with_htmx: bool, shots: Path | None, tag: str) -> None:
    page.goto(f"{base_url}/{lang}/guides/nvlink")
    page.locator("a[href$='/guides/nvlink/quiz']").click()
    expect(page).to_have_url(f"{base_url}/{lang}/guides/nvlink/quiz")
    check_axe(page, with_htmx)
    page.locator(".quiz-actions button[type=submit]").click()
    expect(page.locator(".quiz-item").first).to_be_visible()
    assert page.locator(".quiz-feedback").count() == 0
    check_axe(page, with_htmx)
    if shots:
        page.screenshot(path=str(shots / f"quiz-{tag}-start.png"), full_page=True)
    answer_every_question(page, page.locator(".quiz-item"), with_htmx)
    check_axe(page, with_htmx)
    if shots:
        page.screenshot(path=str(shots / f"quiz-{tag}-answered.png"), full_page=True)
    page.locator(".quiz-finish button").click()
    expect(page).to_have_url(re.compile(r"/result$"))
    expect(page.locator(".quiz-score")).to_contain_text("%")
    check_axe(page, with_htmx)
    if shots:
        page.screenshot(path=str(shots / f"quiz-{tag}-result.png"), full_page=True)
    page.locator(".quiz-actions a").first.click()
    expect(page).to_have_url(re.compile(r"/review$"))
    items = page.locator(".quiz-review .quiz-item")
    assert items.count() >= 8
    for index in range(items.count()):
        expect(items.nth(index).locator(".quiz-explanation")).not_to_be_empty()
    check_axe(page, with_htmx)
    if shots:
        page.screenshot(path=str(shots / f"quiz-{tag}-review.png"), full_page=True)


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_quiz_with_htmx(
    browser: Browser, live_server: str, lang: str, scheme: str, screenshot_dir: Path | None
) -> None:
    context = browser.new_context(
        locale="ko-KR" if lang == "ko" else "en-US",
        color_scheme=scheme,  # type: ignore[arg-type]
        viewport={"width": 1280, "height": 900},
    )
    try:
        page = context.new_page()
        take_quiz(page, live_server, lang, with_htmx=True, shots=screenshot_dir, tag=f"htmx-{lang}-{scheme}")
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_quiz_without_javascript(browser: Browser, live_server: str, lang: str, screenshot_dir: Path | None) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        take_quiz(page, live_server, lang, with_htmx=False, shots=screenshot_dir, tag=f"nojs-{lang}")
        page.goto(f"{live_server}/{lang}/")
        expect(page.locator("#course-progress")).to_be_visible()
    finally:
        context.close()
