"""The diagrams in a real browser: HTMX swaps without a page load, pushed URLs on the lab, the same flows without
JavaScript, and axe-core on the lab page in light and dark."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_browser import describe, run_axe

MARKER = "window.__stillTheSamePage = true"
MARKER_SURVIVES = "() => window.__stillTheSamePage === true"


def test_lab_control_redraws_the_diagram_in_place_and_pushes_its_url(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/en/lab")
    page.evaluate(MARKER)
    diagram = page.locator("#diagram-link-compare")
    expect(diagram.locator("svg title")).to_contain_text("1 GiB")

    diagram.get_by_role("radio", name="Logarithmic").check()
    expect(diagram.locator("svg .dg-axis-title")).to_contain_text("logarithmic scale")
    expect(page).to_have_url(f"{live_server}/en/lab/link-compare?size=1&unit=GiB&scale=log")
    assert page.evaluate(MARKER_SURVIVES), "the page was reloaded"

    size = diagram.get_by_label("Buffer to move")
    size.fill("8")
    size.press("Enter")
    expect(diagram.locator("svg title")).to_contain_text("8 GiB")
    assert page.evaluate(MARKER_SURVIVES)

    # A keyboard user arrows through the GPUs: focus stays on the control across the swaps.
    topology = page.locator("#diagram-topology")
    topology.get_by_label("GPU B (receiver)").focus()
    page.keyboard.press("ArrowDown")
    expect(topology.locator(".dg-hops")).to_contain_text("GPU 6")
    expect(page).to_have_url(f"{live_server}/en/lab/topology?topology=dgx-h100&gpu_a=0&gpu_b=6&drawn=dgx-h100")
    expect(topology.get_by_label("GPU B (receiver)")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(topology.locator(".dg-hops")).to_contain_text("GPU 7")
    expect(topology.get_by_label("GPU B (receiver)")).to_be_focused()
    assert page.evaluate(MARKER_SURVIVES)


def test_bad_value_shows_the_message_in_the_form_without_a_page_load(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/ko/lab")
    page.evaluate(MARKER)
    scaling = page.locator("#diagram-scaling")
    field = scaling.locator("#diagram-scaling-params_b")
    field.fill("0")
    field.press("Enter")
    expect(scaling.get_by_role("alert")).to_contain_text("params_b")
    expect(scaling.get_by_role("alert")).to_contain_text("허용")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_value("0")
    assert page.evaluate(MARKER_SURVIVES)
    field.fill("13")
    field.press("Enter")
    expect(scaling.get_by_role("alert")).to_have_count(0)
    expect(scaling.locator("svg title")).to_contain_text("13 B")


def test_ring_steps_inside_a_chapter_without_changing_the_address(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/en/guides/nvlink")
    page.evaluate(MARKER)
    ring = page.locator("#diagram-ring-allreduce")
    expect(ring.locator(".dg-step-title")).to_contain_text("Step 0 of 6")
    ring.get_by_role("link", name="Next step →").click()
    expect(ring.locator(".dg-step-title")).to_contain_text("Step 1 of 6")
    ring.get_by_role("link", name="Next step →").click()
    expect(ring.locator(".dg-step-title")).to_contain_text("Step 2 of 6")
    expect(ring.locator(".dg-transfer")).to_have_count(4)
    expect(page).to_have_url(f"{live_server}/en/guides/nvlink")
    assert page.evaluate(MARKER_SURVIVES)


def test_without_javascript_the_form_submits_and_the_page_shows_the_new_state(
    browser: Browser, live_server: str
) -> None:
    context = browser.new_context(java_script_enabled=False, locale="en-US")
    page = context.new_page()
    page.goto(f"{live_server}/en/lab")
    topology = page.locator("#diagram-topology")
    topology.get_by_label("Machine").select_option("rail-fat-tree")
    topology.get_by_role("button", name="Redraw").click()
    expect(page).to_have_url(f"{live_server}/en/lab/topology?topology=rail-fat-tree&gpu_a=0&gpu_b=5&drawn=dgx-h100")
    expect(page.get_by_role("heading", level=1)).to_have_text("Paths between two GPUs")
    expect(page.locator("#diagram-topology-topology")).to_have_value("rail-fat-tree")
    expect(page.locator(".dg-hops")).to_contain_text("Leaf switch of rail")

    page.goto(f"{live_server}/en/lab/ring-allreduce")
    page.get_by_role("link", name="Next step →").click()
    expect(page.locator(".dg-step-title")).to_contain_text("Step 1 of 6")
    context.close()


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
@pytest.mark.parametrize("language", ["en", "ko"])
def test_lab_has_no_wcag_a_or_aa_violations(
    browser: Browser, live_server: str, language: str, color_scheme: str, screenshot_dir: Path | None
) -> None:
    context = browser.new_context(color_scheme=color_scheme, viewport={"width": 1280, "height": 900})  # type: ignore[arg-type]
    page = context.new_page()
    page.goto(f"{live_server}/{language}/lab")
    for details in page.locator(".dg-data").all():  # check the data tables too
        details.locator("summary").click()
    violations = run_axe(page)
    if screenshot_dir is not None:
        page.screenshot(path=str(screenshot_dir / f"lab-{language}-{color_scheme}.png"), full_page=True)
    context.close()
    assert violations == [], describe(violations)


def test_lab_fits_a_narrow_screen(browser: Browser, live_server: str, screenshot_dir: Path | None) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 800}, device_scale_factor=2)
    page = context.new_page()
    page.goto(f"{live_server}/ko/lab")
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    if screenshot_dir is not None:
        page.screenshot(path=str(screenshot_dir / "mobile-ko-lab.png"))
    context.close()
    assert overflow <= 0
