"""The diagrams in a real browser, driven by clicks and keys: HTMX swaps without a page load, the lab's address kept
in step with its diagrams, and the same flows without JavaScript. (axe-core checks the lab and a diagram page in
test_browser.py; staying in view, phones and legibility are in test_diagram_experience.py.)"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.e2e.browser import (
    choose_with_arrow_keys,
    expect_http_errors,
    horizontal_overflow_px,
    open_page,
    reach_figure,
    save_screenshot,
    type_over,
)

MARKER = "window.__stillTheSamePage = true"
MARKER_SURVIVES = "() => window.__stillTheSamePage === true"


def test_lab_control_redraws_the_diagram_in_place_and_keeps_the_labs_address(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/en/lab")
    page.evaluate(MARKER)
    diagram = page.locator("#diagram-link-compare")
    expect(diagram.locator("svg title").first).to_contain_text("1 GiB")

    diagram.get_by_text("Logarithmic").click()
    expect(diagram.locator("svg .dg-axis-title").first).to_contain_text("logarithmic scale")
    expect(page).to_have_url(f"{live_server}/en/lab?link-compare.scale=log#diagram-link-compare")
    assert page.evaluate(MARKER_SURVIVES), "the page was reloaded"

    type_over(page, diagram.get_by_label("Buffer to move"), "8")
    page.keyboard.press("Enter")
    expect(diagram.locator("svg title").first).to_contain_text("8 GiB")
    assert page.evaluate(MARKER_SURVIVES)

    # A keyboard user arrows through the GPUs: focus stays on the control across the swaps.
    topology = page.locator("#diagram-topology")
    topology.locator("label", has_text="GPU B (receiver)").click()
    expect(topology.get_by_label("GPU B (receiver)")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(topology.locator(".dg-hops")).to_contain_text("GPU 6")
    expect(page).to_have_url(
        f"{live_server}/en/lab?link-compare.size=8&link-compare.scale=log&topology.gpu_b=6#diagram-topology"
    )
    expect(topology.get_by_label("GPU B (receiver)")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(topology.locator(".dg-hops")).to_contain_text("GPU 7")
    expect(topology.get_by_label("GPU B (receiver)")).to_be_focused()
    assert page.evaluate(MARKER_SURVIVES)


def test_bad_value_shows_the_message_in_the_form_without_a_page_load(page: Page, live_server: str) -> None:
    expect_http_errors(page, 422)  # the refused value's answer, whose message is the point
    page.goto(f"{live_server}/ko/lab")
    page.evaluate(MARKER)
    scaling = reach_figure(page.locator("#diagram-scaling"))
    field = scaling.locator("#diagram-scaling-params_b")
    type_over(page, field, "0")
    page.keyboard.press("Enter")
    expect(scaling.get_by_role("alert")).to_contain_text("모델 크기")
    expect(scaling.get_by_role("alert")).to_contain_text("입력하세요")
    expect(scaling.get_by_role("alert")).not_to_contain_text("params_b")
    expect(scaling.locator("svg title").first).to_contain_text("7 B")  # the last good chart stays
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_value("0")
    assert page.evaluate(MARKER_SURVIVES)
    type_over(page, field, "13")
    page.keyboard.press("Enter")
    expect(scaling.get_by_role("alert")).to_have_count(0)
    expect(scaling.locator("svg title").first).to_contain_text("13 B")


def test_ring_steps_inside_a_chapter_without_changing_the_address(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/en/guides/nvlink")
    page.evaluate(MARKER)
    ring = reach_figure(page.locator("#diagram-ring-allreduce"))
    expect(ring.locator(".dg-step-title")).to_contain_text("Step 0 of 6")
    ring.get_by_role("link", name="Next step →").click()
    expect(ring.locator(".dg-step-title")).to_contain_text("Step 1 of 6")
    ring.get_by_role("link", name="Next step →").focus()
    page.keyboard.press("Enter")
    expect(ring.locator(".dg-step-title")).to_contain_text("Step 2 of 6")
    expect(ring.locator(".dg-svg-narrow .dg-transfer")).to_have_count(4)  # beside the steps in a chapter
    expect(ring.locator(".dg-svg-narrow")).to_be_visible()
    expect(page).to_have_url(f"{live_server}/en/guides/nvlink")
    assert page.evaluate(MARKER_SURVIVES)


def test_without_javascript_the_form_submits_and_the_page_shows_the_new_state(
    browser: Browser, live_server: str
) -> None:
    with open_page(browser, javascript=False) as page:
        page.goto(f"{live_server}/en/lab")
        topology = page.locator("#diagram-topology")
        choose_with_arrow_keys(page, topology, "Machine", "rail-fat-tree")
        topology.get_by_role("button", name="Redraw").click()
        expect(page).to_have_url(
            f"{live_server}/en/lab?topology.topology=rail-fat-tree&topology.gpu_a=0&topology.gpu_b=5"
            "&topology.drawn=dgx-h100#diagram-topology"
        )
        expect(page.get_by_role("heading", level=1)).to_have_text("Lab")
        expect(page.locator("#diagram-topology")).to_be_in_viewport()
        expect(page.locator("#diagram-topology-topology")).to_have_value("rail-fat-tree")
        expect(page.locator(".dg-hops")).to_contain_text("Leaf switch of rail")

        page.goto(f"{live_server}/en/lab/ring-allreduce")
        page.get_by_role("link", name="Next step →").click()
        expect(page).to_have_url(f"{live_server}/en/lab/ring-allreduce?ring-allreduce.step=1#diagram-ring-allreduce")
        expect(page.locator(".dg-step-title")).to_contain_text("Step 1 of 6")


def test_lab_fits_a_narrow_screen(browser: Browser, live_server: str, screenshot_dir: Path | None) -> None:
    with open_page(browser, language="ko", width=375, height=800) as page:
        page.goto(f"{live_server}/ko/lab")
        save_screenshot(page, screenshot_dir, "lab-ko-375", full_page=False)
        assert horizontal_overflow_px(page) <= 0
