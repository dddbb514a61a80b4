"""What the browser tests share: the Chromium they drive, fresh pages, axe-core, screenshots and layout checks."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, expect

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
AXE_SOURCE = PROJECT_ROOT / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.2 level A and AA. axe tags each rule with the version that introduced it, so every version is named:
# "wcag22aa" alone would run only 2.2's new rule (target-size).
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")
LOCALES = {"en": "en-US", "ko": "ko-KR"}

ColorScheme = Literal["light", "dark"]


# Chromium reports an HTTP error status of any document or request as a console error; a test that asks for a 404
# page or sends a value the server refuses (422) on purpose says which statuses it expects (expect_http_errors).
_HTTP_ERROR = re.compile(r"^Failed to load resource: the server responded with a status of (\d{3})")
_EXPECTED_STATUSES: dict[int, set[int]] = {}


def expect_http_errors(page: Page, *statuses: int) -> None:
    """Let the console report these HTTP statuses on this page without failing the test."""
    _EXPECTED_STATUSES.setdefault(id(page), set()).update(statuses)


_EXPECTING_CSP_REFUSALS: set[int] = set()


def expect_csp_refusals(page: Page) -> None:
    """Let the console report Content-Security-Policy refusals on this page: for the test that injects what the
    policy must refuse, and only there."""
    _EXPECTING_CSP_REFUSALS.add(id(page))


def _unexpected(page: Page, errors: list[ConsoleMessage | str]) -> list[str]:
    allowed = _EXPECTED_STATUSES.pop(id(page), set())
    csp_refusals_expected = id(page) in _EXPECTING_CSP_REFUSALS
    _EXPECTING_CSP_REFUSALS.discard(id(page))
    found: list[str] = []
    for error in errors:
        if isinstance(error, str):
            found.append(error)
            continue
        if csp_refusals_expected and "Content Security Policy" in error.text:
            continue
        status = _HTTP_ERROR.match(error.text)
        if status is None or int(status.group(1)) not in allowed:
            found.append(f"{error.text} ({error.location.get('url', '')})")
    return found


@contextmanager
def open_page(
    browser: Browser,
    *,
    language: str = "en",
    color_scheme: ColorScheme = "light",
    width: int = 1280,
    height: int = 900,
    javascript: bool = True,
    timezone: str | None = None,
) -> Iterator[Page]:
    """A page in a context of its own: a new learner, with no cookies, in the given language and colour scheme
    (and the time zone the browser reports, when given).

    The test fails if the page logs any console error (a CSP violation is one) or throws, but for HTTP statuses it
    declared with expect_http_errors."""
    context = browser.new_context(
        locale=LOCALES[language],
        color_scheme=color_scheme,
        viewport={"width": width, "height": height},
        java_script_enabled=javascript,
        timezone_id=timezone,
    )
    errors: list[ConsoleMessage | str] = []
    page = context.new_page()
    try:
        page.on("console", lambda message: errors.append(message) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
        yield page
        unexpected = _unexpected(page, errors)
        assert unexpected == [], f"console errors on {page.url}: {unexpected}"
    finally:
        _EXPECTED_STATUSES.pop(id(page), None)
        _EXPECTING_CSP_REFUSALS.discard(id(page))
        context.close()


DEFERRED_FIGURES = "figure.dg:has(> noscript.dg-deferred)"


def reach_figure(figure: Locator) -> Locator:
    """Scroll to a diagram as a reader does, and wait until it is built (a page may defer a figure's body until
    the reader nears it: app/web/diagram_pages.py)."""
    figure.scroll_into_view_if_needed()
    expect(figure.locator(".dg-chart")).to_be_attached()
    return figure


def reach_every_figure(page: Page) -> None:
    """Scroll past every diagram of the page, so that all of them are built, and back to where the page was."""
    scrolled_to = page.evaluate("() => window.scrollY")
    for figure in page.locator("figure.dg").all():
        reach_figure(figure)
    expect(page.locator(DEFERRED_FIGURES)).to_have_count(0)
    page.evaluate("y => window.scrollTo(0, y)", scrolled_to)


# axe measures a target inside a skipped content-visibility: auto region as covered by the region's edge
# (axe-core#2768). Such regions are shown, through the CSSOM (the CSP refuses a style attribute), while axe runs:
# it then sees the page as a reader who has reached every part of it.
SHOW_SKIPPED_REGIONS = """() => {
    const shown = [...document.querySelectorAll('body *')]
        .filter(element => getComputedStyle(element).contentVisibility === 'auto');
    shown.forEach(element => { element.style.contentVisibility = 'visible'; });
}"""
SKIP_REGIONS_AGAIN = "() => document.querySelectorAll('body *').forEach(e => { e.style.contentVisibility = ''; })"


def run_axe(page: Page) -> list[dict[str, Any]]:
    """axe-core's WCAG 2.2 A and AA violations on the page as it is now, with every diagram built and every
    region that waits to be laid out shown."""
    reach_every_figure(page)
    page.evaluate(SHOW_SKIPPED_REGIONS)
    try:
        return _axe_violations(page)
    finally:
        page.evaluate(SKIP_REGIONS_AGAIN)


def _axe_violations(page: Page) -> list[dict[str, Any]]:
    # Evaluated through the DevTools protocol, which the page's CSP does not govern, so axe needs no
    # script-src exception in production. A page without JavaScript cannot run it.
    page.evaluate(AXE_SOURCE.read_text("utf-8"))
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        list(WCAG_TAGS),
    )
    violations: list[dict[str, Any]] = result["violations"]
    return violations


def describe(violations: list[dict[str, Any]]) -> str:
    """The violations, short enough for an assertion message: the rule, its help and the first few elements."""
    return json.dumps(
        [
            {
                "id": violation["id"],
                "help": violation["help"],
                "count": len(violation["nodes"]),
                "nodes": [
                    {"target": node["target"], "html": node["html"][:160], "why": node["failureSummary"][:300]}
                    for node in violation["nodes"][:5]
                ],
            }
            for violation in violations
        ],
        indent=1,
        ensure_ascii=False,
    )


def save_screenshot(page: Page, directory: Path | None, name: str, *, full_page: bool = True) -> None:
    """Keep a screenshot for people to look at, when SCREENSHOT_DIR asks for them."""
    if directory is not None:
        page.screenshot(path=str(directory / f"{name}.png"), full_page=full_page)


def save_element_screenshot(element: Locator, directory: Path | None, name: str) -> None:
    """Keep a screenshot of one element, with the sticky header out of the way (it would cover the element)."""
    if directory is None:
        return
    # Through the CSSOM: the page's CSP refuses the <style> element that screenshot(style=...) would add.
    unstick = "position => { const header = document.querySelector('.site-header'); header.style.position = position; }"
    element.page.evaluate(unstick, "static")
    element.screenshot(path=str(directory / f"{name}.png"))
    element.page.evaluate(unstick, "")


def horizontal_overflow_px(page: Page) -> float:
    overflow: float = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    return overflow


def is_uncovered(locator: Locator) -> bool:
    """Whether the element is on screen and the topmost thing at the centre of its first line (not under the
    sticky header; a link that wraps has a gap between its lines at the centre of its bounding box)."""
    uncovered: bool = locator.evaluate(
        """element => {
            const box = element.getClientRects()[0] || element.getBoundingClientRect();
            const x = box.left + box.width / 2, y = box.top + box.height / 2;
            if (y < 0 || y > window.innerHeight || x < 0 || x > window.innerWidth) { return false; }
            const hit = document.elementFromPoint(x, y);
            return hit !== null && (hit === element || element.contains(hit));
        }"""
    )
    return uncovered


def type_over(page: Page, field: Locator, text: str) -> None:
    """Click into a field, select what is there and type `text` over it, key by key."""
    field.click()
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.type(text)


def choose_with_arrow_keys(page: Page, within: Locator, label_text: str, value: str, *, most: int = 20) -> None:
    """Pick an option of a closed <select> as a keyboard user does: focus it through its label, then ArrowDown."""
    select = within.get_by_label(label_text)
    within.locator("label", has_text=label_text).click()  # a label gives its control the focus, the list stays shut
    for _ in range(most):
        if select.input_value() == value:
            return
        page.keyboard.press("ArrowDown")
    raise AssertionError(f"ArrowDown never reached the option {value!r} of {select}")
