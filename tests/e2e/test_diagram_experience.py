"""The diagrams as a learner meets them in chromium: a changed control never moves the figure or takes the focus
away, the new result is announced, the lab's address restores the whole lab (Back, reload, a shared link), a
chapter's "Redraw" without JavaScript comes back to the chapter at the diagram, every diagram fits a 320 px
phone with no text under 12 px, and a bad value is explained beside the last good chart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.browser import (
    DEFERRED_FIGURES,
    choose_with_arrow_keys,
    describe,
    expect_http_errors,
    horizontal_overflow_px,
    open_page,
    reach_figure,
    run_axe,
    save_element_screenshot,
    type_over,
)
from tests.e2e.waits import next_frames, top_when_still

DIAGRAM_IDS = ("link-compare", "topology", "ring-allreduce", "busbw-sweep", "scaling")
CHAPTER = "/en/guides/nvlink"
CHAPTER_FIGURES = ["diagram-link-compare", "diagram-topology", "diagram-busbw-sweep", "diagram-ring-allreduce"]
MARKER = "window.__stillTheSamePage = true"
MARKER_SURVIVES = "() => window.__stillTheSamePage === true"
# Rendered size of every visible text: for SVG, the font size times the scale of the text's screen CTM.
SMALLEST_TEXT = """root => {
  const sizes = [];
  for (const text of root.querySelectorAll('svg text')) {
    if (!text.getClientRects().length || !text.textContent.trim()) continue;
    const m = text.getScreenCTM();
    sizes.push([parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b), text.textContent.trim()]);
  }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || element.closest('svg') || !element.getClientRects().length) continue;
    sizes.push([parseFloat(getComputedStyle(element).fontSize), node.textContent.trim()]);
  }
  sizes.sort((a, b) => a[0] - b[0]);
  return sizes[0];
}"""
FITS = """figure => {
  const box = figure.getBoundingClientRect();
  return [...figure.querySelectorAll('svg.dg-svg')].filter(svg => svg.getClientRects().length)
    .map(svg => svg.getBoundingClientRect())
    .map(r => r.left >= box.left - 0.5 && r.right <= box.right + 0.5);
}"""

# In the drawing shown: each box's label outside its box, and any text outside the drawing, in user units.
LABELS_OUTSIDE = """figure => {
  const outside = [];
  for (const svg of figure.querySelectorAll('svg.dg-svg')) {
    if (!svg.getClientRects().length) continue;
    const view = svg.viewBox.baseVal;
    const beyond = (inner, outer) => inner.x < outer.x - 0.5 || inner.y < outer.y - 0.5
      || inner.x + inner.width > outer.x + outer.width + 0.5 || inner.y + inner.height > outer.y + outer.height + 0.5;
    for (const box of svg.querySelectorAll('g.dg-box')) {
      const text = box.querySelector('text');
      if (text && beyond(text.getBBox(), box.querySelector('rect').getBBox())) outside.push(text.textContent);
    }
    for (const text of svg.querySelectorAll('text')) {
      if (beyond(text.getBBox(), view)) outside.push('drawing: ' + text.textContent);
    }
  }
  return outside;
}"""


def top_of(locator: Locator) -> float:
    top: float = locator.evaluate("element => element.getBoundingClientRect().top")
    return top


def focused_id(page: Page) -> str:
    return str(page.evaluate("() => document.activeElement ? document.activeElement.id : ''"))


def bring_to_top(page: Page, figure: Locator) -> float:
    """Scroll so that the figure starts just under the sticky header, as a reader who scrolled to it, and wait
    until it stays there (the deferred figures it brings near are built meanwhile, and may grow above it)."""
    top = None
    for _ in range(20):
        page.evaluate(
            """figure => {
                const header = document.querySelector('.site-header').getBoundingClientRect().height;
                const top = figure.getBoundingClientRect().top + window.scrollY - header - 8;
                window.scrollTo({top, behavior: 'instant'});
            }""",
            figure.element_handle(),
        )
        top = top_when_still(figure)
        if 0 < top < 120:
            return top
    raise AssertionError(f"the figure does not stay put at the top: {top}")


def deferred_ids(page: Page) -> list[str]:
    return [str(figure.get_attribute("id")) for figure in page.locator(DEFERRED_FIGURES).all()]


def test_a_chapter_builds_each_figure_as_the_reader_nears_it(page: Page, live_server: str) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(live_server + CHAPTER)
    expect(page.locator("figure.dg")).to_have_count(4)
    # Not one figure is on a phone's first screen: the page arrives with their markup as inert text (checked once
    # the figures' observer has reported where each one is, which it does within the first frames)...
    next_frames(page, 3)
    assert deferred_ids(page) == CHAPTER_FIGURES
    link_compare = page.locator("#diagram-link-compare")
    assert "<" not in link_compare.inner_text()  # ...which never shows as text
    assert horizontal_overflow_px(page) <= 0

    # A reader scrolling on brings the next figure near: it is built, and it works; the others follow as soon as
    # the browser is idle.
    page.mouse.move(180, 400)
    page.mouse.wheel(0, 300)
    expect(link_compare.locator(".dg-chart svg").first).to_be_attached()
    expect(page.locator(DEFERRED_FIGURES)).to_have_count(0)
    link_compare.scroll_into_view_if_needed()
    link_compare.get_by_text("Logarithmic").click()
    expect(link_compare.locator("svg .dg-axis-title").first).to_contain_text("logarithmic")


def test_printing_a_chapter_prints_every_figure(page: Page, live_server: str) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(live_server + CHAPTER)
    assert len(deferred_ids(page)) == len(CHAPTER_FIGURES)  # none is in a phone's first screen
    page.pdf()
    assert deferred_ids(page) == []


def test_tab_reaches_every_diagram_control_in_page_order(page: Page, live_server: str) -> None:
    page.goto(live_server + CHAPTER)
    entered: list[str] = []
    for _ in range(400):
        page.keyboard.press("Tab")
        figure = page.evaluate("() => document.activeElement.closest('figure.dg')?.id ?? ''")
        if figure and figure not in entered:
            entered.append(figure)
        if figure == "diagram-ring-allreduce":
            break
    assert entered == CHAPTER_FIGURES
    assert deferred_ids(page) == []


def test_a_figure_built_above_the_reader_does_not_move_the_text_being_read(page: Page, live_server: str) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{live_server}{CHAPTER}#real-world")  # the section right after the last figure
    ring = page.locator("#diagram-ring-allreduce")
    expect(ring.locator(".dg-chart")).to_be_attached()  # built after the browser went to the section...
    height = ring.evaluate("element => element.getBoundingClientRect().height")
    assert height > 600, height  # ...growing well past the room it held
    top = top_when_still(page.locator("#real-world"))
    assert 0 < top < 120, f"the section's heading is at {top} px, not under the header where the link put it"


def test_a_chapter_diagram_stays_where_it_is_and_keeps_the_focus(page: Page, live_server: str) -> None:
    page.goto(live_server + CHAPTER)
    page.evaluate(MARKER)

    topology = page.locator("#diagram-topology")
    top = bring_to_top(page, topology)
    topology.locator("label", has_text="GPU B (receiver)").click()
    page.keyboard.press("ArrowDown")
    expect(topology.locator(".dg-hops")).to_contain_text("GPU 6")
    assert abs(top_of(topology) - top) <= 2
    assert focused_id(page) == "diagram-topology-gpu_b"
    expect(topology.get_by_role("status")).to_contain_text("GPU 6")  # announced, politely

    # Another machine: a taller drawing, a longer hop list. The figure still does not move.
    choose_with_arrow_keys(page, topology, "Machine", "rail-fat-tree")
    expect(topology.locator(".dg-hops")).to_contain_text("Leaf switch of rail")
    assert abs(top_of(topology) - top) <= 2
    assert focused_id(page) == "diagram-topology-topology"

    link_compare = page.locator("#diagram-link-compare")
    top = bring_to_top(page, link_compare)
    link_compare.get_by_text("Logarithmic").click()
    expect(link_compare.locator("svg .dg-axis-title").first).to_contain_text("logarithmic")
    assert abs(top_of(link_compare) - top) <= 2
    assert focused_id(page) == "diagram-link-compare-scale-log"
    link_compare.locator("label", has_text="Unit").click()
    page.keyboard.press("ArrowDown")
    expect(link_compare.locator("svg title").first).to_contain_text("1 GB")
    assert abs(top_of(link_compare) - top) <= 2
    assert focused_id(page) == "diagram-link-compare-unit"

    ring = page.locator("#diagram-ring-allreduce")
    top = bring_to_top(page, ring)
    ring.get_by_role("link", name="Next step →").click()
    expect(ring.locator(".dg-step-title")).to_contain_text("Step 1 of 6")
    assert abs(top_of(ring) - top) <= 2
    assert focused_id(page) == "diagram-ring-allreduce-next"
    page.keyboard.press("Enter")
    expect(ring.locator(".dg-step-title")).to_contain_text("Step 2 of 6")
    assert abs(top_of(ring) - top) <= 2
    assert focused_id(page) == "diagram-ring-allreduce-next"
    expect(ring.get_by_role("status")).to_contain_text("Step 2 of 6")
    ring.locator("label", has_text="Step").click()
    page.keyboard.press("ArrowUp")
    expect(ring.locator(".dg-step-title")).to_contain_text("Step 1 of 6")
    assert abs(top_of(ring) - top) <= 2
    assert focused_id(page) == "diagram-ring-allreduce-step"
    ring.get_by_role("link", name="← Previous step").click()  # to step 0, where this link is gone
    expect(ring.locator(".dg-step-title")).to_contain_text("Step 0 of 6")
    assert focused_id(page) == "diagram-ring-allreduce-next", "focus stays in the figure"

    expect(page).to_have_url(live_server + CHAPTER)  # a chapter keeps its address...
    share = ring.get_by_role("link", name="Link to this view")  # ...and each diagram links to what it shows
    expect(share).to_have_attribute("href", f"{live_server}{CHAPTER}#diagram-ring-allreduce")
    expect(topology.get_by_role("link", name="Link to this view")).to_have_attribute(
        "href",
        f"{live_server}{CHAPTER}?topology.topology=rail-fat-tree&topology.gpu_a=2&topology.gpu_b=29"
        "&topology.drawn=rail-fat-tree#diagram-topology",
    )
    assert page.evaluate(MARKER_SURVIVES), "the page was reloaded"


def test_the_labs_address_restores_the_whole_lab(browser: Browser, live_server: str) -> None:
    with open_page(browser) as page:
        page.goto(f"{live_server}/en/lab")
        topology, ring = page.locator("#diagram-topology"), page.locator("#diagram-ring-allreduce")
        reach_figure(topology)
        topology.locator("label", has_text="GPU B (receiver)").click()
        page.keyboard.press("ArrowDown")
        expect(topology.locator(".dg-hops")).to_contain_text("GPU 6")
        reach_figure(ring).get_by_role("link", name="Next step →").click()
        expect(ring.locator(".dg-step-title")).to_contain_text("Step 1 of 6")
        state = f"{live_server}/en/lab?topology.gpu_b=6&ring-allreduce.step=1#diagram-ring-allreduce"
        expect(page).to_have_url(state)

        page.reload()
        # The reader is back at the ring figure; the topology figure above is built once they scroll up to it.
        reach_figure(page.locator("#diagram-topology"))
        expect(page.locator("#diagram-topology-gpu_b")).to_have_value("6")
        expect(page.locator("#diagram-ring-allreduce .dg-step-title")).to_contain_text("Step 1 of 6")

        page.get_by_role("navigation", name="Main").get_by_role("link", name="Course").click()
        expect(page).to_have_url(f"{live_server}/en/")
        page.go_back()
        expect(page).to_have_url(state)
        reach_figure(page.locator("#diagram-topology"))
        expect(page.locator("#diagram-topology-gpu_b")).to_have_value("6")
        expect(page.locator("#diagram-ring-allreduce .dg-step-title")).to_contain_text("Step 1 of 6")

    with open_page(browser, language="ko") as shared:  # someone else opens the link
        shared.goto(state.replace("/en/", "/ko/"))
        expect(shared.locator("#diagram-topology-gpu_b")).to_have_value("6")
        expect(shared.locator("#diagram-ring-allreduce .dg-step-title")).to_contain_text("6단계 중 1단계")
        expect(shared.locator("#diagram-ring-allreduce")).to_be_in_viewport()


def test_without_javascript_redraw_comes_back_to_the_chapter_at_the_diagram(browser: Browser, live_server: str) -> None:
    with open_page(browser, javascript=False) as page:
        page.goto(live_server + CHAPTER)
        topology = page.locator("#diagram-topology")
        choose_with_arrow_keys(page, topology, "Machine", "rail-fat-tree")
        topology.get_by_role("button", name="Redraw").click()
        expect(page).to_have_url(
            f"{live_server}{CHAPTER}?topology.topology=rail-fat-tree&topology.gpu_a=0&topology.gpu_b=5"
            "&topology.drawn=dgx-h100#diagram-topology"
        )
        expect(page.locator("h1")).to_have_text(page.title().split(" · ")[0])
        expect(page.locator("#diagram-topology .dg-hops")).to_contain_text("Leaf switch of rail")
        expect(page.locator("#diagram-topology")).to_be_in_viewport()

        ring = page.locator("#diagram-ring-allreduce")
        ring.get_by_role("link", name="Next step →").click()
        expect(page).to_have_url(f"{live_server}{CHAPTER}?ring-allreduce.step=1#diagram-ring-allreduce")
        expect(page.locator("#diagram-ring-allreduce .dg-step-title")).to_contain_text("Step 1 of 6")
        expect(page.locator("#diagram-ring-allreduce")).to_be_in_viewport()


@pytest.mark.parametrize("width", [320, 375, 1280])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_diagram_fits_and_no_text_is_under_12_px(
    browser: Browser, live_server: str, width: int, lang: str, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, width=width, height=900) as page:
        for path in (
            f"/{lang}/lab",
            f"/{lang}/lab?topology.topology=rail-fat-tree&topology.drawn=rail-fat-tree"
            "&ring-allreduce.gpus=8&ring-allreduce.drawn=8&ring-allreduce.step=3",
            f"/{lang}/guides/nvlink",
        ):
            page.goto(live_server + path)
            for summary in page.locator(".dg-data summary").all():
                summary.click()
            assert horizontal_overflow_px(page) <= 0, path
            for figure in page.locator("figure.dg").all():
                smallest = figure.evaluate(SMALLEST_TEXT)
                assert smallest[0] >= 12 - 0.05, f"{path} {figure.get_attribute('id')}: {smallest}"
                assert all(figure.evaluate(FITS)), f"{path} {figure.get_attribute('id')} is wider than its box"
        if width != 1280:
            for diagram_id in DIAGRAM_IDS:
                figure = page.locator(f"#diagram-{diagram_id}")
                if figure.count():
                    save_element_screenshot(figure, screenshot_dir, f"diagram-{diagram_id}-{lang}-{width}")


@pytest.mark.parametrize(
    ("lang", "typed", "message"),
    [
        ("en", "lots", "Buffer to move must be a number, such as 2.5 or 2,5."),
        ("ko", "많이", "전송할 버퍼에는 2.5나 2,5처럼 수를 입력하세요."),
        ("en", "4096", "Buffer to move must be between 1 byte and 1 TiB (1,024 GiB)."),
    ],
)
def test_a_bad_value_is_explained_beside_the_last_good_chart(
    browser: Browser, live_server: str, lang: str, typed: str, message: str, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang) as page:
        expect_http_errors(page, 422)  # the refused value's answer, whose message is the point
        page.goto(f"{live_server}/{lang}/lab")
        diagram = page.locator("#diagram-link-compare")
        field = diagram.locator("#diagram-link-compare-size")
        type_over(page, field, "2,4")  # a decimal comma is a decimal
        page.keyboard.press("Enter")
        expect(diagram.locator("svg title").first).to_contain_text("2.4 GiB")
        expect(page).to_have_url(f"{live_server}/{lang}/lab?link-compare.size=2.4#diagram-link-compare")

        type_over(page, field, typed)
        page.keyboard.press("Enter")
        expect(diagram.get_by_role("alert")).to_have_text(message)
        expect(field).to_have_attribute("aria-invalid", "true")
        expect(field).to_have_value(typed)
        expect(diagram.locator("svg title").first).to_contain_text("2.4 GiB")  # the last good chart
        expect(diagram.locator(".dg-fallback")).to_have_count(0)
        expect(page).to_have_url(f"{live_server}/{lang}/lab?link-compare.size=2.4#diagram-link-compare")
        assert focused_id(page) == "diagram-link-compare-size"
        save_element_screenshot(diagram, screenshot_dir, f"diagram-error-{lang}-{typed}")
        violations = run_axe(page)
        assert violations == [], describe(violations)


def test_the_lab_after_changes_has_no_wcag_violations_in_both_schemes(browser: Browser, live_server: str) -> None:
    for scheme in ("light", "dark"):
        with open_page(browser, language="ko", color_scheme=scheme, width=375) as page:
            page.goto(f"{live_server}/ko/lab?topology.topology=pcie-gen5-8gpu&topology.drawn=pcie-gen5-8gpu")
            ring = reach_figure(page.locator("#diagram-ring-allreduce"))
            ring.get_by_role("link", name="다음 단계 →").click()
            expect(ring.locator(".dg-step-title")).to_contain_text("6단계 중 1단계")
            violations = run_axe(page)
            assert violations == [], describe(violations)


@pytest.mark.parametrize("width", [320, 375])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_topology_label_fits_its_box_on_a_phone(
    browser: Browser, live_server: str, width: int, lang: str, screenshot_dir: Path | None
) -> None:
    pairs = {"pcie-gen5-8gpu": (7, 0), "dgx-h100": (0, 5), "gb200-nvl72": (71, 40), "rail-fat-tree": (31, 16)}
    with open_page(browser, language=lang, width=width) as page:
        for machine, (a, b) in pairs.items():
            page.goto(
                f"{live_server}/{lang}/lab?topology.topology={machine}&topology.gpu_a={a}&topology.gpu_b={b}"
                f"&topology.drawn={machine}#diagram-topology"
            )
            figure = page.locator("#diagram-topology")
            expect(figure.locator("svg.dg-svg-narrow")).to_be_visible()
            assert figure.locator("svg.dg-svg-narrow g.dg-box").count() >= 12
            assert figure.evaluate(LABELS_OUTSIDE) == [], machine
            save_element_screenshot(figure.locator(".dg-canvas"), screenshot_dir, f"topology-{machine}-{lang}-{width}")


def test_switching_language_keeps_every_diagrams_state(browser: Browser, live_server: str) -> None:
    with open_page(browser) as page:
        page.goto(f"{live_server}/en/lab?topology.gpu_b=6#diagram-topology")
        page.get_by_role("navigation", name="Language").get_by_role("link", name="한국어").click()
        expect(page).to_have_url(f"{live_server}/ko/lab?topology.gpu_b=6#diagram-topology")
        expect(page.locator("#diagram-topology-gpu_b")).to_have_value("6")
        expect(page.locator("#diagram-topology .dg-hops")).to_contain_text("GPU 6")

        # A change made here (the address follows it) goes along too.
        ring = page.locator("#diagram-ring-allreduce")
        ring.get_by_role("link", name="다음 단계 →").click()
        expect(ring.locator(".dg-step-title")).to_contain_text("6단계 중 1단계")
        page.get_by_role("navigation", name="언어").get_by_role("link", name="English").click()
        expect(page).to_have_url(f"{live_server}/en/lab?topology.gpu_b=6&ring-allreduce.step=1#diagram-ring-allreduce")
        expect(page.locator("#diagram-ring-allreduce .dg-step-title")).to_contain_text("Step 1 of 6")
        expect(page.locator("#diagram-topology-gpu_b")).to_have_value("6")

        page.goto(f"{live_server}{CHAPTER}?topology.gpu_b=6#diagram-topology")
        page.get_by_role("navigation", name="Language").get_by_role("link", name="한국어").click()
        expect(page).to_have_url(f"{live_server}/ko/guides/nvlink?topology.gpu_b=6#diagram-topology")
        expect(page.locator("#diagram-topology-gpu_b")).to_have_value("6")


def test_without_javascript_redraw_in_the_lab_keeps_the_other_diagrams(browser: Browser, live_server: str) -> None:
    with open_page(browser, javascript=False) as page:
        page.goto(f"{live_server}/en/lab")
        topology = page.locator("#diagram-topology")
        choose_with_arrow_keys(page, topology, "GPU B (receiver)", "6")
        topology.get_by_role("button", name="Redraw").click()
        expect(page).to_have_url(
            f"{live_server}/en/lab?topology.topology=dgx-h100&topology.gpu_a=0&topology.gpu_b=6"
            "&topology.drawn=dgx-h100#diagram-topology"
        )

        ring = page.locator("#diagram-ring-allreduce")
        choose_with_arrow_keys(page, ring, "GPUs in the ring", "6")
        ring.get_by_role("button", name="Redraw").click()
        expect(page).to_have_url(
            f"{live_server}/en/lab?ring-allreduce.gpus=6&ring-allreduce.size=1&ring-allreduce.unit=GiB"
            "&ring-allreduce.system=dgx-h100&ring-allreduce.step=0&ring-allreduce.drawn=4&topology.gpu_b=6"
            "#diagram-ring-allreduce"
        )
        expect(page.locator("#diagram-topology-gpu_b")).to_have_value("6")  # still the GPU picked before
        expect(page.locator("#diagram-topology .dg-hops")).to_contain_text("GPU 6")
        expect(page.locator("#diagram-ring-allreduce .dg-step-title")).to_contain_text("Step 0 of 10")

        link_compare = page.locator("#diagram-link-compare")
        link_compare.get_by_text("Logarithmic").click()
        link_compare.get_by_role("button", name="Redraw").click()
        expect(page.locator("#diagram-topology-gpu_b")).to_have_value("6")
        expect(page.locator("#diagram-ring-allreduce-gpus")).to_have_value("6")
        expect(link_compare.locator("svg .dg-axis-title").first).to_contain_text("logarithmic")


def test_the_measured_run_beside_a_series_follows_the_chosen_system(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/en/lab")
    figure = reach_figure(page.locator("#diagram-busbw-sweep"))
    series = figure.locator("li", has_text="Series 1:")
    expect(series).to_contain_text("Azure ND H100 v5")  # the default series 1, DGX H100 on one node
    # One change at a time, each drawn before the next, as a learner watches the chart answer.
    figure.locator("#diagram-busbw-sweep-op").select_option("all_gather")
    expect(page).to_have_url(re.compile(r"busbw-sweep\.op=all_gather"))
    figure.locator("#diagram-busbw-sweep-system1").select_option("gcp-a4")
    expect(page).to_have_url(re.compile(r"busbw-sweep\.system1=gcp-a4"))
    type_over(page, figure.locator("#diagram-busbw-sweep-nodes1"), "2")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"busbw-sweep\.nodes1=2"))
    expect(series).to_contain_text("Google Cloud A4 (8 x B200): all_gather_perf on two nodes")
    expect(series).not_to_contain_text("Azure ND H100 v5")
    expect(series.get_by_role("link")).to_have_attribute(
        "href", "https://docs.cloud.google.com/ai-hypercomputer/docs/nccl/test-gke-custom"
    )
    expect(figure.locator("#diagram-busbw-sweep-caption")).not_to_contain_text("Azure")  # nothing there to go stale
