"""Picking up where one left off (issue 27, items 1 and 2), in Chromium with real clicks and keys: home offers the
unfinished quiz and the running exam with how far each got (and when the exam ends), the chapter card says the
quiz is in progress, home says what the exam is and what the progress bar counts; a quiz result points on to the
next chapter, and the last chapter's to the exam. axe-core's WCAG 2.2 A/AA checks on each page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.browser import ColorScheme, describe, horizontal_overflow_px, open_page, run_axe, save_screenshot
from tests.e2e.test_quiz_experience import answer_by_clicking

TEXT = {
    "en": {
        "continue_quiz": "Continue the quiz: NVLink",
        "continue_exam": "Continue the final exam",
        "answered": "({done} of {total} answered",
        "in_progress": "In progress",
        "certificate": "Passing it earns a certificate that anyone can verify online.",
        "counts": "The mean of your best scores on the {count} chapter quizzes and the final exam",
        "next_chapter": "Next chapter: NVSwitch",
        "to_exam": "Go to the final exam",
        "quiz_title": "Practice quiz: NVLink",
        "ends": ", ends at",
    },
    "ko": {
        "continue_quiz": "퀴즈 이어서 풀기: NVLink",
        "continue_exam": "최종 시험 이어서 풀기",
        "answered": "({total}문항 중 {done}문항 답함",
        "in_progress": "푸는 중",
        "certificate": "합격하면 누구나 온라인으로 검증할 수 있는 수료증을 받습니다.",
        "counts": "장별 퀴즈 {count}개와 최종 시험에서 받은 최고 점수의 평균입니다.",
        "next_chapter": "다음 장: NVSwitch",
        "to_exam": "최종 시험으로 가기",
        "quiz_title": "연습 퀴즈: NVLink",
        "ends": "에 끝남",
    },
}
CHAPTER_QUIZZES = 7


def check_axe(page: Page, step: str) -> None:
    violations = run_axe(page)
    assert violations == [], f"{step}: {describe(violations)}"


def start_from_landing(page: Page, url: str) -> str:
    page.goto(url)
    page.locator(".quiz-actions button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/attempts/[^/?#]+$"))
    return page.url


@pytest.mark.parametrize(("lang", "color_scheme", "width"), [("en", "light", 1280), ("ko", "dark", 375)])
def test_home_resumes_the_unfinished_quiz_and_the_running_exam(
    browser: Browser, live_server: str, lang: str, color_scheme: ColorScheme, width: int, screenshot_dir: Path | None
) -> None:
    text = TEXT[lang]
    with open_page(browser, language=lang, color_scheme=color_scheme, width=width, timezone="Asia/Seoul") as page:
        page.goto(f"{live_server}/{lang}/")
        exam_summary = page.locator(".exam-summary")
        expect(exam_summary).to_contain_text(text["certificate"])
        expect(exam_summary.locator(".quiz-facts li")).to_have_count(4)  # questions, pass mark, time, attempts
        expect(page.locator(".resume")).to_have_count(0)

        quiz_url = start_from_landing(page, f"{live_server}/{lang}/guides/nvlink/quiz")
        expect(page.locator("h1")).to_have_text(text["quiz_title"])
        items = page.locator(".quiz-item")
        total = items.count()
        answer_by_clicking(page, items.nth(0))

        page.get_by_role("navigation", name="Main" if lang == "en" else "주 메뉴").get_by_role("link").first.click()
        expect(page).to_have_url(f"{live_server}/{lang}/")
        resume = page.get_by_role("link", name=text["continue_quiz"])
        expect(resume).to_be_visible()
        expect(page.locator(".resume")).to_contain_text(text["answered"].format(done=1, total=total))
        card = page.locator(".chapter-card", has=page.get_by_role("link", name="NVLink", exact=True))
        in_progress = card.get_by_role("link", name=text["in_progress"])
        expect(in_progress).to_have_attribute("href", re.compile(re.escape(quiz_url.removeprefix(live_server)) + "$"))
        expect(page.locator("#course-progress-counts")).to_contain_text(text["counts"].format(count=CHAPTER_QUIZZES))

        exam_url = start_from_landing(page, f"{live_server}/{lang}/exam")
        page.goto(f"{live_server}/{lang}/")
        exam_resume = page.locator(".resume").first  # the exam comes first: its clock is ticking
        expect(exam_resume.get_by_role("link")).to_have_text(text["continue_exam"])
        expect(exam_resume).to_contain_text(text["answered"].format(done=0, total=10))
        expect(exam_resume.locator("time.quiz-end-time")).to_be_visible()
        expect(exam_resume).to_contain_text(text["ends"])
        assert horizontal_overflow_px(page) <= 0
        save_screenshot(page, screenshot_dir, f"home-resume-{lang}-{color_scheme}-{width}")
        check_axe(page, "home with an unfinished quiz and a running exam")

        exam_resume.get_by_role("link").click()
        expect(page).to_have_url(exam_url)
        page.go_back()
        in_progress.click()
        expect(page).to_have_url(quiz_url)
        expect(page.locator(".quiz-item .quiz-feedback")).to_have_count(1)  # the answer given before


@pytest.mark.parametrize(("lang", "width"), [("en", 1280), ("ko", 375)])
def test_a_quiz_result_points_to_the_next_chapter_and_the_last_one_to_the_exam(
    browser: Browser, live_server: str, lang: str, width: int, screenshot_dir: Path | None
) -> None:
    text = TEXT[lang]
    with open_page(browser, language=lang, width=width) as page:
        start_from_landing(page, f"{live_server}/{lang}/guides/nvlink/quiz")
        page.locator(".quiz-finish button").click()
        expect(page).to_have_url(re.compile(r"/result$"))
        save_screenshot(page, screenshot_dir, f"result-next-{lang}-{width}")
        check_axe(page, "result with a next chapter")
        page.get_by_role("link", name=text["next_chapter"]).click()
        expect(page).to_have_url(f"{live_server}/{lang}/guides/nvswitch")

        start_from_landing(page, f"{live_server}/{lang}/guides/future/quiz")
        page.locator(".quiz-finish button").click()
        expect(page).to_have_url(re.compile(r"/result$"))
        expect(page.locator(".quiz-next")).not_to_contain_text(text["next_chapter"].split(":")[0] + ":")
        page.get_by_role("link", name=text["to_exam"]).click()
        expect(page).to_have_url(f"{live_server}/{lang}/exam")
