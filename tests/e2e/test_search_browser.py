"""The search and the glossary in Chromium: WCAG 2.2 AA with and without JavaScript, as-you-type with HTMX, a
plain form without it, on a desktop and a phone."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.e2e.browser import ColorScheme, describe, horizontal_overflow_px, open_page, run_axe, save_screenshot

QUERIES = {"en": "busbw", "ko": "대역폭"}
SCHEMES: list[ColorScheme] = ["light", "dark"]


def block_site_scripts(page: Page) -> None:
    """The page as a browser without JavaScript builds it, while axe can still be injected through DevTools."""

    def empty(route: Route) -> None:  # answered empty rather than aborted: a failed load is a console error
        route.fulfill(status=200, content_type="text/javascript", body="")

    page.route("**/*.js", empty)


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("color_scheme", SCHEMES)
@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("scripts", [True, False], ids=["javascript", "no-javascript"])
def test_the_search_page_has_no_wcag_22_violations(
    browser: Browser,
    live_server: str,
    lang: str,
    color_scheme: ColorScheme,
    width: int,
    scripts: bool,
    screenshot_dir: Path | None,
) -> None:
    with open_page(browser, language=lang, color_scheme=color_scheme, width=width) as page:
        if not scripts:
            block_site_scripts(page)
        response = page.goto(f"{live_server}/{lang}/search?q={quote(QUERIES[lang])}")
        assert response is not None
        assert response.status == 200
        expect(page.locator(".search-hit mark").first).to_be_visible()
        assert horizontal_overflow_px(page) <= 0
        violations = run_axe(page)
        if scripts:
            save_screenshot(page, screenshot_dir, f"search-{lang}-{color_scheme}-{width}", full_page=False)
    assert violations == [], describe(violations)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_nothing_found_has_no_wcag_22_violations(browser: Browser, live_server: str, lang: str) -> None:
    with open_page(browser, language=lang) as page:
        page.goto(f"{live_server}/{lang}/search?q=qqqqzzzz")
        expect(page.locator(".search-suggestions a").first).to_be_visible()
        violations = run_axe(page)
    assert violations == [], describe(violations)


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("color_scheme", SCHEMES)
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_glossary_has_no_wcag_22_violations(
    browser: Browser, live_server: str, lang: str, color_scheme: ColorScheme, width: int, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, color_scheme=color_scheme, width=width) as page:
        page.goto(f"{live_server}/{lang}/glossary")
        expect(page.locator(".glossary-entry").first).to_be_visible()
        assert horizontal_overflow_px(page) <= 0
        violations = run_axe(page)
        save_screenshot(page, screenshot_dir, f"glossary-{lang}-{color_scheme}-{width}", full_page=False)
    assert violations == [], describe(violations)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_results_appear_as_you_type_and_the_address_follows(browser: Browser, live_server: str, lang: str) -> None:
    with open_page(browser, language=lang) as page:
        page.goto(f"{live_server}/{lang}/search")
        field = page.locator("#search-q")
        field.press_sequentially(QUERIES[lang], delay=30)
        expect(page.locator(".search-hit mark").first).to_have_text(QUERIES[lang], ignore_case=True)
        expect(page).to_have_url(f"{live_server}/{lang}/search?q={quote(QUERIES[lang])}")
        expect(field).to_be_focused()  # the swap replaced the results, not the box being typed in
        violations = run_axe(page)
        page.go_back()
        expect(page).to_have_url(f"{live_server}/{lang}/search")
    assert violations == [], describe(violations)


def test_without_javascript_the_header_form_searches_and_a_result_opens_its_section(
    browser: Browser, live_server: str
) -> None:
    with open_page(browser, language="ko", javascript=False) as page:
        page.goto(f"{live_server}/ko/guides/nvlink")
        page.locator("#site-search-q").fill("팻 트리")
        page.locator("#site-search-q").press("Enter")
        expect(page).to_have_url(f"{live_server}/ko/search?q={quote('팻 트리').replace('%20', '+')}")
        page.locator(".search-hit-title a[href*='/guides/infiniband#fat-tree-arithmetic']").first.click()
        expect(page).to_have_url(f"{live_server}/ko/guides/infiniband#fat-tree-arithmetic")
        expect(page.locator("#fat-tree-arithmetic")).to_be_in_viewport()


def test_a_term_link_in_a_chapter_is_reached_by_keyboard_and_opens_its_entry(
    browser: Browser, live_server: str
) -> None:
    with open_page(browser, language="en") as page:
        page.goto(f"{live_server}/en/guides/infiniband")
        link = page.locator("a.term-link[href='/en/glossary#term-rdma']")
        expect(link).to_have_accessible_name("RDMA")
        link.focus()
        expect(link).to_be_focused()
        page.keyboard.press("Enter")
        expect(page).to_have_url(f"{live_server}/en/glossary#term-rdma")
        expect(page.locator("#term-rdma")).to_be_in_viewport()
        page.locator("#term-rdma .glossary-taught a").click()
        expect(page).to_have_url(f"{live_server}/en/guides/infiniband#rdma-verbs")


@pytest.mark.parametrize("width", [320, 375, 414])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_on_a_phone_the_search_button_fits_the_header_line(
    browser: Browser, live_server: str, lang: str, width: int
) -> None:
    with open_page(browser, language=lang, width=width, height=700) as page:
        page.goto(f"{live_server}/{lang}/glossary")
        button = page.locator(".site-search-button")
        expect(button).to_be_visible()
        expect(button).to_have_accessible_name({"en": "Search", "ko": "검색"}[lang])
        expect(page.locator(".site-search-input")).to_be_hidden()
        brand = page.locator(".brand").bounding_box()
        nav = page.locator(".site-nav").bounding_box()
        box = button.bounding_box()
        assert brand is not None
        assert nav is not None
        assert box is not None
        assert brand["x"] + brand["width"] <= nav["x"], "the course's name is not drawn under the links"
        assert box["width"] >= 24
        assert box["height"] >= 24  # WCAG 2.2 target size
        assert horizontal_overflow_px(page) <= 0
