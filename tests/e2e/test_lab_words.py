"""The lab's words (issue 27, items 3, 4 and 8), in Chromium: the generic servers are named in the reader's
language, the busbw table's "Limited by" column says latency or a link's bandwidth in words (never an internal
id), sizes and Korean words stay on one line at 375 px, and the ring at 5 GPUs draws every arrow clear of the
boxes, with its figures' numbers and units kept together."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from tests.e2e.browser import open_page, reach_every_figure, save_element_screenshot

INTERNAL_IDS = re.compile(r"\b(nvlink\d|pcie\d|ib-[a-z]+|roce-\d+g)\b")
LIMIT = {"en": re.compile(r"^(latency \(α\)|.+ bandwidth|—)$"), "ko": re.compile(r"^(지연 시간\(α\)|.+ 대역폭|—)$")}
LIMIT_HEADER = {"en": "Limited by", "ko": "제한 요인"}
# How many line boxes the text `word` takes inside each element that holds it (1: it is not broken).
LINE_BOXES_OF = """([elements, word]) => elements.flatMap(element => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const counts = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        let at = node.data.indexOf(word);
        while (at !== -1) {
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + word.length);
            const tops = new Set([...range.getClientRects()].map(rect => Math.round(rect.top)));
            counts.push(tops.size);
            at = node.data.indexOf(word, at + 1);
        }
    }
    return counts;
})"""


def open_tables(scope: Locator) -> None:
    for summary in scope.locator(".dg-data summary").all():
        summary.click()


def line_boxes(cells: Locator, word: str) -> list[int]:
    counts: list[int] = cells.evaluate_all(f"elements => ({LINE_BOXES_OF})([elements, {word!r}])")
    return counts


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_lab_names_its_systems_and_limits_in_words_and_keeps_sizes_whole(
    browser: Browser, live_server: str, lang: str, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, width=375, height=800) as page:
        page.goto(f"{live_server}/{lang}/lab")
        reach_every_figure(page)
        open_tables(page.locator("main"))
        main = page.locator("main")
        if lang == "ko":
            expect(main).not_to_contain_text("(illustrative)")
            expect(main).to_contain_text("GPU 8개 PCIe 5.0 서버(예시)")
        busbw = page.locator("figure.dg#diagram-busbw-sweep")
        table = busbw.locator(".dg-data table")
        header = table.locator("thead th", has_text=LIMIT_HEADER[lang]).first
        expect(header).to_be_attached()
        limits = table.locator("tbody td.dg-limit")
        assert limits.count() > 0
        texts = [text.strip() for text in limits.all_inner_texts()]
        assert all(LIMIT[lang].match(text) for text in texts), texts
        assert not [text for text in texts if INTERNAL_IDS.search(text)], texts
        assert len({text for text in texts if text != "—"}) >= 2, texts  # both kinds show on the default sweep
        sizes = table.locator("tbody th[scope=row]")
        heights = sizes.evaluate_all("cells => cells.map(cell => cell.getClientRects()[0].height)")
        line = float(sizes.first.evaluate("cell => parseFloat(getComputedStyle(cell).lineHeight)"))
        assert max(heights) < 1.9 * line, f"a size wrapped: {heights} (one line is {line}px)"
        if lang == "ko":
            counts = line_boxes(page.locator(".dg-data th, .dg-data td"), "링크")
            assert counts, "the lab's tables say 링크 somewhere"
            assert max(counts) == 1, f"링크 broken across lines: {counts}"
        save_element_screenshot(busbw.locator(".dg-data"), screenshot_dir, f"busbw-table-{lang}-375")


@pytest.mark.parametrize("width", [1280, 375])
def test_the_ring_at_five_gpus_draws_every_arrow_clear_of_the_boxes(
    browser: Browser, live_server: str, width: int, screenshot_dir: Path | None
) -> None:
    query = "ring-allreduce.gpus=5&ring-allreduce.drawn=5&ring-allreduce.step=3"
    with open_page(browser, width=width, height=900) as page:
        page.goto(f"{live_server}/en/lab/ring-allreduce?{query}")
        figure = page.locator("figure.dg").first
        svg = figure.locator(".dg-svg-wide")
        expect(svg.locator(".dg-transfer")).to_have_count(5)
        clear = svg.evaluate(
            """svg => {
                const boxes = [...svg.querySelectorAll('.dg-gpu-box')].map(box => box.getBBox());
                const inside = (x, y) => boxes.some(b => x > b.x && x < b.x + b.width && y > b.y && y < b.y + b.height);
                return [...svg.querySelectorAll('.dg-transfer')].map(line => {
                    const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map(name => line[name].baseVal.value);
                    return {ends: !inside(x1, y1) && !inside(x2, y2), length: Math.hypot(x2 - x1, y2 - y1)};
                });
            }"""
        )
        assert all(arrow["ends"] for arrow in clear), clear
        assert min(arrow["length"] for arrow in clear) > 40, clear  # long enough to read as an arrow
        for quantity in ("205 MiB", "3.82 ms"):  # 1 GiB over 5 GPUs; 8 steps of it at 450 GB/s
            counts = line_boxes(figure.locator(".dg-facts dd, .dg-legend li"), quantity.replace(" ", "\u00a0"))
            assert counts, quantity
            assert max(counts) == 1, (quantity, counts)
        save_element_screenshot(figure, screenshot_dir, f"ring-5-gpus-{width}")
