"""A reader's path through the site in a real browser, the citations on a chapter, and axe-core's WCAG 2.2 A/AA
checks on every page that needs no quiz attempt (the quiz pages are checked in test_quiz_browser.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from tests.e2e.browser import (
    ColorScheme,
    describe,
    expect_http_errors,
    horizontal_overflow_px,
    is_uncovered,
    open_page,
    run_axe,
    save_element_screenshot,
    save_screenshot,
)

SCHEMES: tuple[ColorScheme, ...] = ("light", "dark")
# One of each kind of page; the chapters, and their quizzes' landing pages, are found from the course home.
PAGE_KINDS = {
    "home": "/{lang}/",
    "lab": "/{lang}/lab",
    "diagram": "/{lang}/lab/topology",
    "exam": "/{lang}/exam",
    "error": "/{lang}/no-such-page",
}
BACK_LINK_NAME = {"en": "Back to reference {number}", "ko": "참조 {number}번으로 돌아가기"}


def published_chapters(page: Page, base_url: str, lang: str) -> list[str]:
    page.goto(f"{base_url}/{lang}/")
    paths = page.locator(".chapter-card-title a").evaluate_all("links => links.map(link => link.pathname)")
    assert paths, "the course home lists no published chapter"
    return [str(path) for path in paths]


def test_learner_switches_to_korean_and_reads_the_nvlink_chapter(page: Page, live_server: str) -> None:
    csp_errors: list[str] = []
    page.on("console", lambda message: _collect_csp(message, csp_errors))

    page.goto(f"{live_server}/")
    expect(page).to_have_url(f"{live_server}/en/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Interconnects")

    page.get_by_role("navigation", name="Language").get_by_role("link", name="한국어").click()
    expect(page).to_have_url(f"{live_server}/ko/")
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.get_by_role("link", name="강좌 시작하기")).to_be_visible()

    page.get_by_role("heading", name="NVLink").get_by_role("link").click()
    expect(page).to_have_url(f"{live_server}/ko/guides/nvlink")
    expect(page.get_by_role("heading", level=1)).to_be_visible()

    toc = page.get_by_role("navigation", name="이 페이지의 내용")
    toc.locator('a[href="#deep-dive"]').click()
    expect(page).to_have_url(f"{live_server}/ko/guides/nvlink#deep-dive")
    expect(page.locator("#deep-dive")).to_be_in_viewport()

    # The switcher keeps the page and the section.
    page.get_by_role("navigation", name="언어").get_by_role("link", name="English").click()
    expect(page).to_have_url(f"{live_server}/en/guides/nvlink#deep-dive")
    expect(page.locator("html")).to_have_attribute("lang", "en")

    # A chapter is the same cached bytes for every reader, so it remembers nothing: `/` still leads to the
    # language of the last per-learner page, the Korean home. Opening the English home remembers English.
    page.goto(f"{live_server}/")
    expect(page).to_have_url(f"{live_server}/ko/")
    page.get_by_role("navigation", name="언어").get_by_role("link", name="English").click()
    expect(page).to_have_url(f"{live_server}/en/")
    page.goto(f"{live_server}/")
    expect(page).to_have_url(f"{live_server}/en/")
    assert csp_errors == []


def _collect_csp(message: ConsoleMessage, errors: list[str]) -> None:
    if "Content Security Policy" in message.text or "Refused to" in message.text:
        errors.append(message.text)


def test_htmx_is_loaded_and_configured_by_meta_tag(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/en/guides/nvlink")
    config = page.evaluate(
        "() => ({self: htmx.config.selfRequestsOnly, evalOk: htmx.config.allowEval, "
        "styles: htmx.config.includeIndicatorStyles, version: htmx.version})"
    )
    assert config["self"] is True
    assert config["evalOk"] is False
    assert config["styles"] is False
    assert config["version"].startswith("2.0.")


def test_pages_work_without_javascript(browser: Browser, live_server: str) -> None:
    with open_page(browser, language="ko", javascript=False) as page:
        page.goto(f"{live_server}/")
        expect(page).to_have_url(f"{live_server}/ko/")
        page.get_by_role("heading", name="NVLink").get_by_role("link").click()
        expect(page).to_have_url(f"{live_server}/ko/guides/nvlink")
        page.locator('nav.toc a[href="#risks"]').click()
        expect(page.locator("#risks")).to_be_in_viewport()


@pytest.mark.parametrize("color_scheme", SCHEMES)
@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("kind", list(PAGE_KINDS))
def test_page_has_no_wcag_22_violations(
    browser: Browser, live_server: str, kind: str, lang: str, color_scheme: ColorScheme, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, color_scheme=color_scheme) as page:
        if kind == "error":
            expect_http_errors(page, 404)  # the page's own status, which Chromium reports in the console
        response = page.goto(live_server + PAGE_KINDS[kind].format(lang=lang))
        assert response is not None
        assert response.status == (404 if kind == "error" else 200)
        for summary in page.locator(".dg-data summary").all():  # the diagram's data table too
            summary.click()
        violations = run_axe(page)
        save_screenshot(page, screenshot_dir, f"{kind}-{lang}-{color_scheme}")
    assert violations == [], describe(violations)


REGIONS_LAID_OUT_ON_DEMAND = """() => {
    const regions = [...document.querySelectorAll('body *')]
        .filter(element => getComputedStyle(element).contentVisibility === 'auto');
    const figures = [...document.querySelectorAll('figure.dg')];
    const above = regions.filter(region => figures.some(figure =>
        region.contains(figure) || (region.compareDocumentPosition(figure) & Node.DOCUMENT_POSITION_FOLLOWING)));
    const names = above.map(region => region.querySelector('h2')?.id ?? region.className);
    return {count: regions.length, aboveAFigure: names};
}"""


def test_text_below_a_chapters_last_figure_waits_to_be_laid_out_and_nothing_above_a_figure_does(
    page: Page, live_server: str
) -> None:
    """content-visibility: auto keeps a region's height an estimate until it is first shown; above a figure that
    would move the figure while it is redrawn, so only the text after the last one may wait."""
    for path in published_chapters(page, live_server, "en"):
        page.goto(live_server + path)
        regions = page.evaluate(REGIONS_LAID_OUT_ON_DEMAND)
        assert regions["aboveAFigure"] == [], path
        assert regions["count"] >= 3, (path, regions)  # at least the questions and two sections


@pytest.mark.parametrize("color_scheme", SCHEMES)
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_published_chapter_and_its_quiz_page_have_no_wcag_22_violations(
    browser: Browser, live_server: str, lang: str, color_scheme: ColorScheme
) -> None:
    failures: dict[str, str] = {}
    with open_page(browser, language=lang, color_scheme=color_scheme) as page:
        chapters = published_chapters(page, live_server, lang)
        for path in chapters:
            page.goto(live_server + path)
            if violations := run_axe(page):
                failures[path] = describe(violations)
            page.get_by_role("link", name=re.compile(r"^(Take the quiz|퀴즈 풀기)$")).click()
            expect(page).to_have_url(f"{live_server}{path}/quiz")
            if violations := run_axe(page):
                failures[f"{path}/quiz"] = describe(violations)
    assert failures == {}, "\n".join(f"{path}: {found}" for path, found in failures.items())


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_each_back_link_is_named_in_the_page_language_and_returns_to_its_citation(
    page: Page, live_server: str, lang: str
) -> None:
    page.goto(f"{live_server}/{lang}/guides/nvlink")
    citations = page.locator(".prose .footnote-ref a")
    back_links = page.locator(".sources .footnote-backref")
    citation_ids = citations.evaluate_all("links => links.map(link => link.id)")
    back_targets = back_links.evaluate_all("links => links.map(link => link.hash.slice(1))")
    assert len(citation_ids) >= 10
    assert sorted(back_targets) == sorted(citation_ids)  # one way back from every citation, and only those

    for index in range(back_links.count()):
        link = back_links.nth(index)
        number = link.evaluate("link => link.closest('li').id.replace('fn', '')")
        expect(link).to_have_accessible_name(BACK_LINK_NAME[lang].format(number=number))
        box = link.bounding_box()
        assert box is not None
        assert box["width"] >= 24
        assert box["height"] >= 24

    # A second citation of source 3: its back link leads to that place in the text, and the citation to the source.
    back_links.and_(page.locator('[href="#fnref3:1"]')).click()
    expect(page).to_have_url(f"{live_server}/{lang}/guides/nvlink#fnref3:1")
    citation = page.locator('[id="fnref3:1"]')
    expect(citation).to_be_in_viewport()
    assert is_uncovered(citation)
    citation.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{live_server}/{lang}/guides/nvlink#fn3")
    assert is_uncovered(page.locator("#fn3 a").first)


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("color_scheme", SCHEMES)
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_chapter_fits_the_screen_and_its_jumps_land_in_sight(
    browser: Browser, live_server: str, lang: str, color_scheme: ColorScheme, width: int, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, color_scheme=color_scheme, width=width, height=800) as page:
        page.goto(f"{live_server}/{lang}/guides/nvlink")
        assert horizontal_overflow_px(page) <= 0
        violations = run_axe(page)  # targets wrap differently on a phone
        name = f"chapter-{lang}-{width}-{color_scheme}"
        save_screenshot(page, screenshot_dir, name, full_page=False)
        save_element_screenshot(
            page.locator(".prose p:has(.footnote-ref + .footnote-ref)").first, screenshot_dir, f"{name}-cited"
        )
        save_element_screenshot(page.locator(".sources"), screenshot_dir, f"{name}-sources")

        # Whatever a link jumps to must not end up under the header (WCAG 2.2 focus not obscured). On a phone the
        # table of contents is closed at the top of the chapter.
        if not page.locator("nav.toc details").evaluate("details => details.open"):
            page.locator("nav.toc summary").click()
        page.locator('nav.toc a[href="#deep-dive"]').click()
        expect(page.locator("#deep-dive")).to_be_in_viewport()
        assert is_uncovered(page.locator("#deep-dive"))
        page.locator('.footnote-backref[href="#fnref2"]').click()
        expect(page).to_have_url(re.compile(r"#fnref2$"))
        assert is_uncovered(page.locator("#fnref2"))
        page.keyboard.press("Shift+Tab")  # the link before the citation, near the top of the screen
        assert is_uncovered(page.locator(":focus"))
    assert violations == [], describe(violations)


def test_home_fits_a_narrow_screen(browser: Browser, live_server: str, screenshot_dir: Path | None) -> None:
    with open_page(browser, language="ko", width=375, height=800) as page:
        page.goto(f"{live_server}/ko/")
        save_screenshot(page, screenshot_dir, "home-ko-375", full_page=False)
        assert horizontal_overflow_px(page) <= 0


def test_api_reference_renders_under_the_strict_csp(page: Page, live_server: str) -> None:
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.goto(f"{live_server}/docs")
    expect(page.locator(".opblock-summary-path").first).to_be_visible(timeout=15_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/v1/simulate/collective" in paths
    assert [text for text in console if "Content Security Policy" in text or "Refused" in text] == []


def test_print_stylesheet_keeps_the_text_and_drops_navigation(page: Page, live_server: str) -> None:
    page.emulate_media(media="print")
    page.goto(f"{live_server}/en/guides/nvlink")
    expect(page.locator(".site-header")).to_be_hidden()
    expect(page.locator("nav.toc")).to_be_hidden()
    expect(page.locator(".footnote-backref").first).to_be_hidden()  # paper cannot jump back
    expect(page.locator("#deep-dive")).to_be_visible()
    expect(page.locator("#fn1")).to_be_visible()
    link_suffix = page.evaluate(
        "() => getComputedStyle(document.querySelector('.prose a[href^=\"http\"]'), '::after').content"
    )
    assert "attr(href)" in link_suffix or "http" in link_suffix
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF")
