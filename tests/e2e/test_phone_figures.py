"""Figures on a phone (issue 27, item 3), in Chromium at 375 px with real keys: every figure's controls fold into
one row right above its chart, so that with the controls at the top of the screen the whole drawing is in view,
and it stays in view while a control changes it. No figure needs scrolling between a control and the chart."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page

from tests.e2e.browser import describe, horizontal_overflow_px, open_page, reach_every_figure, run_axe, save_screenshot

PHONE_WIDTH, PHONE_HEIGHT = 375, 740


def controls_to_top(page: Page, figure: Locator) -> None:
    """Scroll as a reader does who wants to use the controls: their top just under the sticky header."""
    figure.locator(".dg-controls").evaluate(
        """form => {
            const header = document.querySelector('.site-header').getBoundingClientRect().height;
            window.scrollBy(0, form.getBoundingClientRect().top - header - 8);
        }"""
    )


def drawing_in_view(page: Page, figure: Locator) -> dict[str, float]:
    box: dict[str, float] = figure.evaluate(
        """figure => {
            const drawing = [...figure.querySelectorAll('.dg-chart svg.dg-svg')]
                .find(svg => svg.getClientRects().length > 0);
            const rect = drawing.getBoundingClientRect();
            return {top: rect.top, bottom: rect.bottom, window: window.innerHeight};
        }"""
    )
    return box


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_figure_keeps_its_drawing_in_view_beside_its_controls_on_a_phone(
    browser: Browser, live_server: str, lang: str, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, width=PHONE_WIDTH, height=PHONE_HEIGHT) as page:
        page.goto(f"{live_server}/{lang}/lab")
        reach_every_figure(page)
        assert horizontal_overflow_px(page) <= 0  # the row scrolls inside its figure, never the page
        figures = page.locator("figure.dg")
        assert figures.count() == 5
        for index in range(figures.count()):
            figure = figures.nth(index)
            name = figure.get_attribute("id")
            controls_to_top(page, figure)
            box = drawing_in_view(page, figure)
            # The drawing starts within the top half of the screen, right under the one row of controls; one
            # that fits on the screen at all is in view whole (the link comparison's 15 bars are taller).
            assert box["top"] < 0.5 * box["window"], f"{name}: the controls push the drawing down: {box}"
            fits = box["bottom"] - box["top"] <= 0.6 * box["window"]
            assert not fits or box["bottom"] <= box["window"], f"{name}: the drawing ends below the screen: {box}"
            select = figure.locator(".dg-controls select").first
            select.focus()
            with page.expect_response(lambda response: "/lab/" in response.url) as answered:
                page.keyboard.press("ArrowDown")  # a change, as a reader makes it
            assert answered.value.status == 200
            page.wait_for_function(  # swapped and settled
                "figure => !figure.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')",
                arg=figure.element_handle(),
            )
            after = drawing_in_view(page, figure)
            assert abs(after["top"] - box["top"]) <= 2, f"{name}: the drawing moved on a change: {box} -> {after}"
            save_screenshot(page, screenshot_dir, f"phone-{lang}-{name}", full_page=False)
        violations = run_axe(page)
        assert violations == [], describe(violations)
