"""The colour-scheme chooser (issue 27, item 9), in Chromium with real keys: system, light or dark, kept in this
browser, applied before the page's body exists (no flash of the other scheme), while the server sends everyone
the same bytes; without JavaScript there is no chooser, and the page follows the system."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.browser import ColorScheme, choose_with_arrow_keys, describe, open_page, run_axe, save_screenshot

LABEL = {"en": "Colour scheme", "ko": "화면 색상"}
LIGHT_BG = "rgb(251, 251, 248)"
DARK_BG = "rgb(15, 20, 18)"
# Runs before any script of the page: notes the scheme <html> carries when <body> is inserted, which is before
# anything of the body can be painted.
SCHEME_WHEN_BODY_STARTS = """
new MutationObserver((records, observer) => {
  if (document.body) {
    window.__schemeAtBody = document.documentElement.getAttribute('data-scheme') || 'none';
    observer.disconnect();
  }
}).observe(document, {childList: true, subtree: true});
"""


def background(page: Page) -> str:
    colour: str = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    return colour


@pytest.mark.parametrize(
    ("lang", "system", "chosen", "expected"), [("en", "dark", "light", LIGHT_BG), ("ko", "light", "dark", DARK_BG)]
)
def test_the_chosen_scheme_is_kept_and_applied_before_the_body_is_laid_out(
    browser: Browser,
    live_server: str,
    lang: str,
    system: ColorScheme,
    chosen: str,
    expected: str,
    screenshot_dir: Path | None,
) -> None:
    chapter = f"{live_server}/{lang}/guides/nvlink"
    with open_page(browser, language=lang, color_scheme=system, width=375) as page:
        page.add_init_script(SCHEME_WHEN_BODY_STARTS)
        first = page.goto(chapter)
        assert first is not None
        first_bytes = first.body()
        assert background(page) == (DARK_BG if system == "dark" else LIGHT_BG)  # the system's, at first
        footer = page.locator(".site-footer")
        footer.scroll_into_view_if_needed()
        choose_with_arrow_keys(page, footer, LABEL[lang], chosen)
        expect(page.locator("html")).to_have_attribute("data-scheme", chosen)
        assert background(page) == expected
        violations = run_axe(page)
        assert violations == [], describe(violations)
        save_screenshot(page, screenshot_dir, f"scheme-{lang}-{chosen}-on-{system}", full_page=False)

        again = page.goto(chapter)
        assert again is not None
        assert page.evaluate("() => window.__schemeAtBody") == chosen  # decided before the body existed
        assert background(page) == expected
        expect(page.get_by_label(LABEL[lang])).to_have_value(chosen)
        assert again.body() == first_bytes  # the choice never reaches the server

        page.get_by_label(LABEL[lang]).select_option("system")
        expect(page.locator("html")).not_to_have_attribute("data-scheme", chosen)
        assert background(page) == (DARK_BG if system == "dark" else LIGHT_BG)
        page.reload()
        assert page.evaluate("() => window.__schemeAtBody") == "none"


def test_without_javascript_there_is_no_chooser_and_the_page_follows_the_system(
    browser: Browser, live_server: str
) -> None:
    with open_page(browser, color_scheme="dark", javascript=False) as page:
        page.goto(f"{live_server}/en/")
        expect(page.get_by_label(LABEL["en"])).to_be_hidden()
        assert background(page) == DARK_BG
