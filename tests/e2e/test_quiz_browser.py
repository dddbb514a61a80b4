"""Taking the NVLink quiz and the final exam in Chromium, with HTMX and without JavaScript, in English and Korean,
driven by clicks and keys; axe-core's WCAG 2.2 A/AA checks on the landing, attempt, result and review pages in light
and dark; and the cross-origin guard that replaced the CSRF token, seen from the browser."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, Request, expect

from tests.e2e.browser import ColorScheme, describe, expect_http_errors, open_page, run_axe, save_screenshot

EXAM_WITHHELD = {
    "en": "The exam judges no answer while it runs. When it ends you see your score and the sections to re-read; "
    "the right answers and explanations once you have passed.",
    "ko": "시험이 진행되는 동안에는 어떤 답안도 채점 결과를 알려 주지 않습니다. 시험이 끝나면 점수와 다시 읽을 절을 "
    "보여 주고, 합격한 뒤에는 정답과 해설을 보여 줍니다.",
}
EXAM_SAVED = {"en": "Answer saved.", "ko": "답안을 저장했습니다."}


@dataclass(frozen=True, slots=True)
class Run:
    """One way through a quiz: the page, the live server, the language, and whether the page runs scripts."""

    page: Page
    base_url: str
    lang: str
    javascript: bool
    shots: Path | None
    tag: str

    def check_accessibility(self, step: str) -> None:
        # axe runs as page script, which a page without JavaScript refuses; the runs with JavaScript check the
        # same markup.
        if self.javascript:
            violations = run_axe(self.page)
            assert violations == [], f"{step}: {describe(violations)}"
        save_screenshot(self.page, self.shots, f"{self.tag}-{step}")

    def check_no_token(self) -> None:
        """Pages carry no CSRF token any more: a state-changing request is judged by its Fetch Metadata."""
        assert self.page.locator("[hx-headers], input[type=hidden]").count() == 0
        assert "csrf" not in self.page.content().lower()


def answer(page: Page, question: Locator) -> None:
    """Answer as a learner does: type a value and press Enter, or click the first option and then the button."""
    field = question.locator("input[name=value]")
    if field.count():
        unit = question.locator(".quiz-unit").inner_text()
        field.click()
        page.keyboard.type(f"1 {unit}")
        page.keyboard.press("Enter")
    else:
        question.locator(".quiz-option label").first.click()
        question.locator("button[type=submit]").click()


def answer_every_question(run: Run, *, exam: bool) -> int:
    page = run.page
    items = page.locator(".quiz-item")
    count = items.count()
    assert count >= 8
    for index in range(count):
        url_before = page.url
        question_id = items.nth(index).get_attribute("id")
        answer(page, items.nth(index))
        question = page.locator(f"#{question_id}")
        feedback = question.locator(".quiz-feedback")
        expect(feedback).to_be_visible()
        expect(question.locator("fieldset input").first).to_be_disabled()  # locked
        expect(page.locator("#quiz-progress-bar")).to_have_attribute("value", str(index + 1))
        if exam:
            check_withheld(question, run.lang)
        else:
            expect(question.locator(".quiz-explanation")).not_to_have_text(EXAM_WITHHELD[run.lang])
            expect(question.locator(".quiz-explanation")).not_to_be_empty()
        if run.javascript:
            assert page.url == url_before  # swapped in place, no page load
            expect(feedback).to_be_focused()  # keyboard and screen-reader users land on the feedback
        else:
            expect(page).to_have_url(re.compile(rf"/attempts/[^/]+#{question_id}$"))
    return count


def check_withheld(scope: Locator, lang: str) -> None:
    """On the exam an answer is saved without a verdict: not right or wrong, no slip, no right option or value."""
    expect(scope.locator(".quiz-verdict")).to_have_text(EXAM_SAVED[lang])
    expect(scope.locator(".quiz-feedback.is-saved")).to_have_count(1)
    expect(scope.locator(".is-right, .is-wrong, .quiz-mark-right, .quiz-tag, .quiz-misconception")).to_have_count(0)
    expect(scope.locator(".quiz-values", has_text=re.compile("Expected|정답"))).to_have_count(0)
    expect(scope.locator(".quiz-explanation")).to_have_text(EXAM_WITHHELD[lang])


def check_htmx_requests(posts: list[Request], base_url: str, expected: int) -> None:
    """Each answer went out as an HTMX request that the server accepted as same-origin, with no token."""
    assert len(posts) == expected
    for request in posts:
        headers = request.all_headers()
        assert headers["hx-request"] == "true"
        assert headers["sec-fetch-site"] == "same-origin"
        assert headers["origin"] == base_url
        assert not [name for name in headers if "csrf" in name]
        response = request.response()
        assert response is not None
        assert response.status == 200


def start(run: Run, landing_path: str) -> None:
    page = run.page
    page.goto(f"{run.base_url}/{run.lang}{landing_path}")
    run.check_no_token()
    run.check_accessibility("landing")
    page.locator(".quiz-actions button[type=submit]").click()
    expect(page).to_have_url(re.compile(rf"/{run.lang}/attempts/[^/]+$"))
    expect(page.locator(".quiz-item").first).to_be_visible()
    expect(page.locator(".quiz-feedback")).to_have_count(0)
    run.check_no_token()
    run.check_accessibility("attempt")


def finish(run: Run, *, failed: bool = False) -> None:
    page = run.page
    page.locator(".quiz-finish button").click()
    expect(page).to_have_url(re.compile(r"/result$"))
    expect(page.locator(".quiz-score")).to_contain_text("%")
    if failed:
        expect(page.locator(".quiz-result")).to_have_class(re.compile(r"\bis-failed\b"))
    run.check_accessibility("result")


def finish_and_review(run: Run, questions: int, *, failed: bool = False) -> Locator:
    page = run.page
    finish(run, failed=failed)
    page.locator(".quiz-actions a.button-primary").click()
    expect(page).to_have_url(re.compile(r"/review$"))
    items = page.locator(".quiz-review .quiz-item")
    expect(items).to_have_count(questions)
    run.check_accessibility("review")
    return items


def take_chapter_quiz(run: Run) -> None:
    page = run.page
    page.goto(f"{run.base_url}/{run.lang}/guides/nvlink")
    page.locator(".chapter-quiz-link a").click()
    expect(page).to_have_url(f"{run.base_url}/{run.lang}/guides/nvlink/quiz")
    start(run, "/guides/nvlink/quiz")
    posts: list[Request] = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    questions = answer_every_question(run, exam=False)
    if run.javascript:
        check_htmx_requests(posts, run.base_url, questions)
    run.check_accessibility("answered")
    items = finish_and_review(run, questions)
    for index in range(questions):
        expect(items.nth(index).locator(".quiz-explanation")).not_to_be_empty()
        expect(items.nth(index).locator(".quiz-explanation")).not_to_have_text(EXAM_WITHHELD[run.lang])
    expect(page.locator(".quiz-review .quiz-mark-right")).not_to_have_count(0)  # practice shows the right answers


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_quiz_with_htmx(
    browser: Browser, live_server: str, lang: str, color_scheme: ColorScheme, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, color_scheme=color_scheme) as page:
        take_chapter_quiz(Run(page, live_server, lang, True, screenshot_dir, f"quiz-htmx-{lang}-{color_scheme}"))


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_quiz_without_javascript(browser: Browser, live_server: str, lang: str, screenshot_dir: Path | None) -> None:
    with open_page(browser, language=lang, javascript=False, width=390, height=844) as page:
        take_chapter_quiz(Run(page, live_server, lang, False, screenshot_dir, f"quiz-nojs-{lang}"))
        page.goto(f"{live_server}/{lang}/")
        expect(page.locator("#course-progress")).to_be_visible()


@pytest.mark.parametrize(
    ("lang", "color_scheme", "javascript"), [("en", "light", True), ("ko", "dark", True), ("ko", "light", False)]
)
def test_exam_shows_no_right_answer_before_it_is_passed(
    browser: Browser,
    live_server: str,
    lang: str,
    color_scheme: ColorScheme,
    javascript: bool,
    screenshot_dir: Path | None,
) -> None:
    tag = f"exam-{'htmx' if javascript else 'nojs'}-{lang}-{color_scheme}"
    with open_page(browser, language=lang, color_scheme=color_scheme, javascript=javascript) as page:
        run = Run(page, live_server, lang, javascript, screenshot_dir, tag)
        start(run, "/exam")
        assert answer_every_question(run, exam=True) == 10
        run.check_accessibility("answered")
        # The first option and "1 <unit>" everywhere fall far short of the pass mark: nothing may be revealed.
        finish(run, failed=True)
        page.reload()  # the result says the score and the sections by chapter, and there is no per-question review
        expect(page.locator(".quiz-to-review a")).not_to_have_count(0)
        expect(page.locator(".quiz-tag, .quiz-judged, a[href$='/review']")).to_have_count(0)
        page.goto(page.url.removesuffix("/result") + "/review")
        expect(page).to_have_url(re.compile(r"/result$"))


def test_a_form_on_another_site_cannot_answer_for_the_learner(
    page: Page, live_server: str, screenshot_dir: Path | None
) -> None:
    page.goto(f"{live_server}/en/guides/nvlink/quiz")
    page.locator(".quiz-actions button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/attempts/[^/]+$"))
    attempt_url = page.url
    question = page.locator(".quiz-item").first
    action = question.locator("form").get_attribute("action")
    assert action is not None
    token = question.locator("input[name=tokens]").first
    field = (
        f'<input name="tokens" value="{token.get_attribute("value")}">'
        if token.count()
        else f'<input name="value" value="1 {question.locator(".quiz-unit").inner_text()}">'
    )
    # What a forged request looks like: the same form, on a page of another site, sent by the learner's browser.
    forged = f'<form method="post" action="{live_server}{action}">{field}<button>Win a GPU</button></form>'
    page.route("http://elsewhere.example/", lambda route: route.fulfill(content_type="text/html", body=forged))
    page.goto("http://elsewhere.example/")
    expect_http_errors(page, 403)  # the refusal, which is the point
    with page.expect_response(f"{live_server}{action}") as caught:
        page.get_by_role("button", name="Win a GPU").click()
    response = caught.value
    assert response.status == 403
    assert response.request.all_headers()["origin"] == "http://elsewhere.example"
    expect(page.locator("html")).to_have_attribute("lang", "en")  # the refusal is a page of the site, not a bare 403
    violations = run_axe(page)
    assert violations == [], describe(violations)
    save_screenshot(page, screenshot_dir, "forged-answer-refused")

    page.goto(attempt_url)
    expect(page.locator(".quiz-item").first.locator(".quiz-feedback")).to_have_count(0)
    expect(page.locator(".quiz-item").first.locator("fieldset input").first).to_be_enabled()
    expect(page.locator("#quiz-progress-bar")).to_have_attribute("value", "0")
