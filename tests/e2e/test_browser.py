"""A learner's path through the site in a real browser, and accessibility checks with axe-core."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from tests.e2e.conftest import AXE_SOURCE

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
PAGES = ["/en/", "/ko/", "/en/guides/nvlink", "/ko/guides/nvlink", "/en/no-such-page", "/ko/no-such-page"]


def run_axe(page: Page) -> list[dict[str, Any]]:
    # Evaluated through the DevTools protocol, which the page's CSP does not govern, so axe needs no
    # script-src exception in production.
    page.evaluate(AXE_SOURCE.read_text("utf-8"))
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        WCAG_TAGS,
    )
    violations: list[dict[str, Any]] = result["violations"]
    return violations


def describe(violations: list[dict[str, Any]]) -> str:
    return json.dumps(
        [{"id": v["id"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]][:5]} for v in violations],
        indent=1,
        ensure_ascii=False,
    )


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
    toc_link = toc.locator('a[href="#deep-dive"]')
    toc_link.click()
    expect(page).to_have_url(f"{live_server}/ko/guides/nvlink#deep-dive")
    expect(page.locator("#deep-dive")).to_be_in_viewport()

    # The switcher keeps the page and the section.
    page.get_by_role("navigation", name="언어").get_by_role("link", name="English").click()
    expect(page).to_have_url(f"{live_server}/en/guides/nvlink#deep-dive")
    expect(page.locator("html")).to_have_attribute("lang", "en")

    page.goto(f"{live_server}/")
    expect(page).to_have_url(f"{live_server}/en/")  # the last language chosen is remembered
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
    context = browser.new_context(java_script_enabled=False, locale="ko-KR")
    page = context.new_page()
    page.goto(f"{live_server}/")
    expect(page).to_have_url(f"{live_server}/ko/")
    page.get_by_role("heading", name="NVLink").get_by_role("link").click()
    expect(page).to_have_url(f"{live_server}/ko/guides/nvlink")
    page.locator('nav.toc a[href="#risks"]').click()
    expect(page.locator("#risks")).to_be_in_viewport()
    context.close()


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
@pytest.mark.parametrize("path", PAGES)
def test_no_wcag_a_or_aa_violations(
    browser: Browser, live_server: str, path: str, color_scheme: str, screenshot_dir: Path | None
) -> None:
    context = browser.new_context(color_scheme=color_scheme, viewport={"width": 1280, "height": 900})  # type: ignore[arg-type]
    page = context.new_page()
    page.goto(f"{live_server}{path}")
    violations = run_axe(page)
    if screenshot_dir is not None:
        name = path.strip("/").replace("/", "_") or "root"
        page.screenshot(path=str(screenshot_dir / f"{name}-{color_scheme}.png"), full_page=True)
    context.close()
    assert violations == [], describe(violations)


@pytest.mark.parametrize("path", ["/en/guides/nvlink", "/ko/"])
def test_narrow_screen_has_no_horizontal_scroll(
    browser: Browser, live_server: str, path: str, screenshot_dir: Path | None
) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 800}, device_scale_factor=2)
    page = context.new_page()
    page.goto(f"{live_server}{path}")
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    if screenshot_dir is not None:
        page.screenshot(path=str(screenshot_dir / f"mobile-{path.strip('/').replace('/', '_')}.png"))
    context.close()
    assert overflow <= 0


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
    expect(page.locator("#deep-dive")).to_be_visible()
    link_suffix = page.evaluate(
        "() => getComputedStyle(document.querySelector('.prose a[href^=\"http\"]'), '::after').content"
    )
    assert "attr(href)" in link_suffix or "http" in link_suffix
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF")
