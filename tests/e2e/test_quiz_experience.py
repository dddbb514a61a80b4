"""The quiz loop as a learner lives it (issue 14, items 7-11), in Chromium with real clicks and keys: an unfinished
attempt is resumed from the quiz page; the result breaks the score down; the exam's time limit counts down in the
learner's own time zone, stays in view while scrolling and speaks only at 5 minutes, 1 minute and the end; and a
refused answer without JavaScript comes back inside its question. axe-core's WCAG 2.2 A/AA checks on each page."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.browser import (
    ColorScheme,
    describe,
    horizontal_overflow_px,
    is_uncovered,
    open_page,
    run_axe,
    save_screenshot,
    type_over,
)

CONTINUE = {"en": "Continue your attempt (2 of {total} answered)", "ko": "이어서 풀기({total}문제 중 2문제 완료)"}
NEW_ATTEMPT = {"en": "Start a new attempt", "ko": "새로 응시하기"}


def check_axe(page: Page, step: str) -> None:
    violations = run_axe(page)
    assert violations == [], f"{step}: {describe(violations)}"


def answer_by_clicking(page: Page, item: Locator, *, partly: bool = False) -> None:
    """Type a value and press Enter, or click the first option and the button; with `partly`, a multiple choice
    gets every option ticked: all the right ones and at least one wrong, so it is partly right."""
    field = item.locator("input[name=value]")
    if field.count():
        field.click()
        page.keyboard.type("1 " + item.locator(".quiz-unit").inner_text())
        page.keyboard.press("Enter")
    else:
        labels = item.locator(".quiz-option label")
        ticked = labels.count() if partly and item.locator("input[type=checkbox]").count() else 1
        for index in range(ticked):
            labels.nth(index).click()
        item.get_by_role("button").click()
    expect(item.locator(".quiz-feedback")).to_be_visible()


def start_chapter_quiz(page: Page, base_url: str, lang: str) -> None:
    page.goto(f"{base_url}/{lang}/guides/nvlink")
    page.locator(".chapter-quiz-link a").click()
    page.locator(".quiz-actions button[type=submit]").click()
    expect(page).to_have_url(re.compile(rf"/{lang}/attempts/[^/?#]+$"))


@pytest.mark.parametrize(("lang", "color_scheme", "width"), [("en", "light", 1280), ("ko", "dark", 375)])
def test_an_unfinished_attempt_is_resumed_from_the_quiz_page(
    browser: Browser, live_server: str, lang: str, color_scheme: ColorScheme, width: int, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, color_scheme=color_scheme, width=width, height=860) as page:
        start_chapter_quiz(page, live_server, lang)
        attempt_url = page.url
        items = page.locator(".quiz-item")
        total = items.count()
        answered = [items.nth(0).get_attribute("id"), items.nth(1).get_attribute("id")]
        answer_by_clicking(page, items.nth(0))
        answer_by_clicking(page, items.nth(1))

        # Away to the chapter and back to its quiz, as a learner who stopped for a while would.
        page.locator(".quiz-header .eyebrow a").click()
        expect(page).to_have_url(f"{live_server}/{lang}/guides/nvlink")
        page.locator(".chapter-quiz-link a").click()
        expect(page).to_have_url(f"{live_server}/{lang}/guides/nvlink/quiz")
        resume = page.get_by_role("link", name=CONTINUE[lang].format(total=total))
        expect(resume).to_be_visible()
        expect(page.get_by_role("button", name=NEW_ATTEMPT[lang])).to_be_visible()
        check_axe(page, "landing with an open attempt")
        save_screenshot(page, screenshot_dir, f"resume-landing-{lang}-{color_scheme}-{width}")
        assert horizontal_overflow_px(page) <= 0

        resume.click()
        expect(page).to_have_url(attempt_url)
        for question_id in answered:
            question = page.locator(f"#{question_id}")
            expect(question.locator(".quiz-feedback")).to_be_visible()
            expect(question.locator("fieldset input").first).to_be_disabled()  # locked, as they were left
        expect(items.nth(2).locator(".quiz-feedback")).to_have_count(0)
        expect(items.nth(2).locator("fieldset input").first).to_be_enabled()
        expect(page.locator("#quiz-progress-bar")).to_have_attribute("value", "2")


@pytest.mark.parametrize(
    ("lang", "color_scheme", "width"),
    [("en", "light", 1280), ("en", "dark", 375), ("ko", "light", 375), ("ko", "dark", 1280)],
)
def test_the_result_breaks_the_score_down(
    browser: Browser, live_server: str, lang: str, color_scheme: ColorScheme, width: int, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, color_scheme=color_scheme, width=width, height=860) as page:
        start_chapter_quiz(page, live_server, lang)
        items = page.locator(".quiz-item")
        for index in range(items.count()):
            answer_by_clicking(page, items.nth(index), partly=True)
        page.locator(".quiz-finish button").click()
        expect(page).to_have_url(re.compile(r"/result$"))
        breakdown = page.locator(".quiz-breakdown")
        expect(breakdown).to_be_visible()
        # "1 <unit>" everywhere and the first option or two: far below the pass mark, with named slips.
        expect(breakdown.locator(".quiz-misconceptions > li").first).to_be_visible()
        first_link = breakdown.locator(".quiz-reread a").first
        href = first_link.get_attribute("href")
        assert href is not None
        assert re.fullmatch(rf"/{lang}/guides/[a-z-]+#[a-z0-9-]+", href), href
        check_axe(page, "result")
        save_screenshot(page, screenshot_dir, f"result-{lang}-{color_scheme}-{width}")
        assert horizontal_overflow_px(page) <= 0
        for text in page.locator(".quiz-breakdown .quiz-mark, .quiz-breakdown .quiz-tag").all():
            size = float(text.evaluate("element => parseFloat(getComputedStyle(element).fontSize)"))
            assert size >= 12, size
        # The bank's one multiple-choice question, every option ticked: each option marked in words, not by
        # colour alone, as a right one chosen or a wrong one chosen.
        partly = breakdown.locator(".quiz-partly")
        expect(partly).to_have_count(1)
        expect(partly.locator(".quiz-judged-chosen-right .quiz-mark").first).not_to_be_empty()
        expect(partly.locator(".quiz-judged-chosen-wrong .quiz-mark").first).not_to_be_empty()
        expect(partly.locator(".quiz-judged-missed, .quiz-judged-avoided")).to_have_count(0)
        first_link.click()
        expect(page).to_have_url(f"{live_server}{href}")
        page.go_back()  # and from the partly right answer to its place in the review
        partly.locator(".quiz-partly-prompt a").click()
        expect(page).to_have_url(re.compile(r"/review#answer-"))
        expect(page.locator("#" + page.url.split("#")[1])).to_be_in_viewport()


ZONES = {"en": ("America/Los_Angeles", r"(AM|PM) P[SD]T"), "ko": ("Asia/Seoul", r"GMT\+9")}


def local_clock_text(iso: str, zone: str) -> str:
    """The hour and minutes as Intl.DateTimeFormat writes them for en-US and ko-KR: 12-hour, no leading zero."""
    moment = datetime.fromisoformat(iso).astimezone(ZoneInfo(zone))
    return f"{moment.hour % 12 or 12}:{moment.minute:02d}"


@pytest.mark.parametrize(("lang", "color_scheme", "width"), [("en", "light", 1280), ("ko", "dark", 375)])
def test_the_exam_counts_down_in_local_time_and_stays_in_view(
    browser: Browser, live_server: str, lang: str, color_scheme: ColorScheme, width: int, screenshot_dir: Path | None
) -> None:
    zone, zone_label = ZONES[lang]
    with open_page(browser, language=lang, color_scheme=color_scheme, width=width, timezone=zone, height=860) as page:
        page.clock.install()  # the page's timers and clocks, to move 35 minutes on in a moment
        page.goto(f"{live_server}/{lang}/exam")
        page.locator(".quiz-actions button[type=submit]").click()
        expect(page).to_have_url(re.compile(rf"/{lang}/attempts/[^/?#]+$"))
        timer = page.locator("#quiz-timer")
        end = timer.locator("time.quiz-end-time")
        iso = end.get_attribute("datetime")
        assert iso is not None
        expect(end).to_contain_text(local_clock_text(iso, zone))  # rewritten from UTC to the learner's zone
        expect(end).to_have_text(re.compile(zone_label))
        expect(end).not_to_contain_text("UTC")
        left = timer.locator(".quiz-timer-left")
        expect(left).to_have_text(re.compile(r"^(39:5\d|40:00) (left|남음)$"))
        page.clock.run_for(3000)
        expect(left).to_have_text(re.compile(r"^39:5[0-7]"))
        status = page.locator("#quiz-timer-status")
        expect(status).to_have_attribute("role", "status")
        expect(status).to_be_empty()  # the countdown itself is not announced
        assert timer.get_attribute("aria-live") is None
        assert timer.get_attribute("role") is None
        check_axe(page, "exam attempt")
        save_screenshot(page, screenshot_dir, f"timer-{lang}-{color_scheme}-{width}", full_page=False)

        # Scrolling down the questions, the time left stays in view and small.
        page.mouse.move(width / 2, 400)
        for _ in range(12):
            page.mouse.wheel(0, 800)
        expect(page.locator(".quiz-finish button")).to_be_in_viewport()
        assert is_uncovered(left)
        box = timer.bounding_box()
        assert box is not None
        if width < 600:
            assert box["height"] <= 48, box  # one line across the top of a phone
            assert box["y"] <= 1, box
        else:
            first = page.locator(".quiz-item").first.bounding_box()
            assert first is not None
            assert box["x"] >= first["x"] + first["width"], (box, first)  # beside the questions, not over them
        assert horizontal_overflow_px(page) <= 0
        save_screenshot(page, screenshot_dir, f"timer-scrolled-{lang}-{color_scheme}-{width}", full_page=False)

        # It speaks at 5 minutes and at 1 minute left, and when time is up, with a way to the result.
        page.clock.run_for("35:00")
        expect(status).to_have_text("5 minutes left" if lang == "en" else "5분 남음")
        expect(timer).to_have_class(re.compile(r"\bis-low\b"))
        page.clock.run_for("04:00")
        expect(status).to_have_text("1 minute left" if lang == "en" else "1분 남음")
        page.clock.run_for("01:00")
        expect(status).to_contain_text("Time is up" if lang == "en" else "시간이 다 되었습니다")
        result_link = left.get_by_role("link")
        expect(result_link).to_be_visible()
        save_screenshot(page, screenshot_dir, f"timer-over-{lang}-{color_scheme}-{width}", full_page=False)


def test_without_javascript_the_exam_ends_at_a_time_labelled_utc(
    browser: Browser, live_server: str, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language="en", javascript=False, width=375, timezone="Asia/Seoul", height=860) as page:
        page.goto(f"{live_server}/en/exam")
        page.locator(".quiz-actions button[type=submit]").click()
        end = page.locator("#quiz-timer time.quiz-end-time")
        expect(end).to_have_text(re.compile(r"^\d\d:\d\d UTC$"))  # the browser never said where it is
        expect(page.locator("#quiz-timer .quiz-timer-left")).to_have_text(re.compile(r"^(40|39) minutes left$"))
        save_screenshot(page, screenshot_dir, "timer-nojs-en-375", full_page=False)


@pytest.mark.parametrize(("lang", "color_scheme", "width"), [("en", "light", 1280), ("ko", "dark", 375)])
def test_without_javascript_a_refused_answer_comes_back_inside_its_question(
    browser: Browser, live_server: str, lang: str, color_scheme: ColorScheme, width: int, screenshot_dir: Path | None
) -> None:
    with open_page(
        browser, language=lang, color_scheme=color_scheme, width=width, javascript=False, height=860
    ) as page:
        start_chapter_quiz(page, live_server, lang)
        numeric = page.locator(".quiz-item:has(input[name=value])").last
        question_id = numeric.get_attribute("id")
        numeric.locator("input[name=value]").click()
        page.keyboard.type("3 kg")
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(rf"\?question=[^&]+&error=unknown_unit&value=3\+kg#{question_id}$"))
        block = page.locator(f"#{question_id}")
        error = block.locator(".quiz-error")
        expect(error).to_have_text(re.compile("Unknown unit" if lang == "en" else "알 수 없는 단위입니다"))
        expect(error).to_be_in_viewport()  # the browser went to the question, not to the top of the page
        expect(page.locator(".quiz-error")).to_have_count(1)
        expect(block.locator("input[name=value]")).to_be_enabled()  # nothing was locked: try again
        save_screenshot(page, screenshot_dir, f"nojs-error-{lang}-{color_scheme}-{width}", full_page=False)

        expect(block.locator("input[name=value]")).to_have_value("3 kg")  # what was typed, to correct

        # Corrected, the answer is accepted and the message is gone.
        type_over(page, block.locator("input[name=value]"), "1 " + block.locator(".quiz-unit").inner_text())
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(rf"/attempts/[^/?#]+#{question_id}$"))
        expect(page.locator(f"#{question_id} .quiz-feedback")).to_be_visible()
        expect(page.locator(".quiz-error")).to_have_count(0)
