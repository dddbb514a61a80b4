"""Reading a chapter as a learner does, in Chromium: the length of a line, numbers that stay with their units,
Korean worked examples in columns, tables on a phone, a one-line header, the table of contents on a phone and
beside the text, the system's own fonts, and no text under 12 px."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.browser import (
    ColorScheme,
    describe,
    horizontal_overflow_px,
    is_uncovered,
    open_page,
    run_axe,
    save_screenshot,
)
from tests.e2e.waits import next_frames

TOC_NAME = {"en": "On this page", "ko": "이 페이지의 내용"}
# Characters per line of running text at 1280 px: about 65-70 in English. A Hangul syllable is about twice as
# wide as a Latin letter, so the same measure holds about 45 characters of Korean, which is what Korean books set.
LINE_LENGTH = {"en": (62, 72), "ko": (40, 52)}

CHARACTERS_PER_LINE = """() => {
  const counts = [];
  for (const paragraph of document.querySelectorAll('.prose p')) {
    const lines = new Map();
    const walker = document.createTreeWalker(paragraph, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('sup')) { continue; }  // a citation sits higher on its own line
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) { continue; }
        const line = Math.round(box.bottom);
        lines.set(line, (lines.get(line) || 0) + 1);
      }
    }
    const perLine = Array.from(lines.entries()).sort((a, b) => a[0] - b[0]).map(entry => entry[1]);
    counts.push(...perLine.slice(0, -1));  // a paragraph's last line is as short as it happens to be
  }
  return counts;
}"""

# Every "number, no-break space, unit" in the text, and whether it sits on one line.
SPLIT_QUANTITIES = r"""() => {
  const broken = [];
  let seen = 0;
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of node.data.matchAll(/\d+(?:[.,]\d+)*\u00a0[^\s\d]+/g)) {
      seen += 1;
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) { broken.push(match[0]); }
    }
  }
  return {seen, broken};
}"""

# The left edge of the first "=" on each line of a code block.
EQUALS_COLUMNS = """pre => {
  const text = pre.textContent;
  const lefts = [];
  let lineStart = 0;
  for (const line of text.split('\\n')) {
    const column = line.indexOf('=');
    if (column >= 0) {
      const offset = lineStart + column;
      const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
      let passed = 0;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (offset < passed + node.length) {
          const range = document.createRange();
          range.setStart(node, offset - passed);
          range.setEnd(node, offset - passed + 1);
          lefts.push(range.getBoundingClientRect().left);
          break;
        }
        passed += node.length;
      }
    }
    lineStart += line.length + 1;
  }
  return lefts;
}"""

# Words of a table that the layout broke across lines.
BROKEN_WORDS = r"""table => {
  const broken = [];
  for (const cell of table.querySelectorAll('th, td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
        if (tops.size > 1) { broken.push(match[0]); }
      }
    }
  }
  return broken;
}"""

FOCUS_THE_LINK_BEFORE = """element => {
  const links = Array.from(document.querySelectorAll('main a[href]'));
  const before = links.filter(link => link.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING);
  before[before.length - 1].focus();
}"""

# The smallest rendered font size of any text outside the figures (the diagrams have tests of their own).
SMALLEST_TEXT = """() => {
  let smallest = {size: Infinity, text: ''};
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.data.trim() || element.closest('figure, svg, script, [hidden], .skip-link')) { continue; }
    if (element.getClientRects().length === 0) { continue; }
    const size = parseFloat(getComputedStyle(element).fontSize);
    if (size < smallest.size) { smallest = {size, text: node.data.trim().slice(0, 40)}; }
  }
  return smallest;
}"""


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_line_of_running_text_holds_a_readable_number_of_characters(
    browser: Browser, live_server: str, lang: str
) -> None:
    with open_page(browser, language=lang, width=1280) as page:
        page.goto(f"{live_server}/{lang}/guides/nvlink")
        counts = page.evaluate(CHARACTERS_PER_LINE)
    low, high = LINE_LENGTH[lang]
    assert len(counts) > 100
    assert low <= statistics.median(counts) <= high, statistics.median(counts)
    assert max(counts) <= high + 12


@pytest.mark.parametrize("width", [320, 375, 1280])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_numbers_never_break_from_their_units(browser: Browser, live_server: str, lang: str, width: int) -> None:
    with open_page(browser, language=lang, width=width) as page:
        page.goto(f"{live_server}/{lang}/guides/nvlink")
        found = page.evaluate(SPLIT_QUANTITIES)
    assert found["seen"] > 50
    assert found["broken"] == []


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_eyebrow_and_contents_title_are_not_capitalised(browser: Browser, live_server: str, lang: str) -> None:
    with open_page(browser, language=lang) as page:
        page.goto(f"{live_server}/{lang}/guides/nvlink")
        for selector in (".eyebrow", ".eyebrow a", ".toc-title"):
            assert page.locator(selector).evaluate("element => getComputedStyle(element).textTransform") == "none"
        eyebrow = page.locator(".eyebrow a")
        assert eyebrow.inner_text() == eyebrow.text_content()


@pytest.mark.parametrize(("slug", "block"), [("nvl72", 0), ("why-interconnects", 0), ("nvlink", 1)])
def test_korean_worked_examples_keep_their_columns(browser: Browser, live_server: str, slug: str, block: int) -> None:
    with open_page(browser, language="ko") as page:
        page.goto(f"{live_server}/ko/guides/{slug}")
        pre = page.locator(".prose pre").nth(block)
        pre.scroll_into_view_if_needed()
        source_columns = pre.evaluate(
            "pre => pre.textContent.split('\\n').filter(l => l.includes('=')).map(l => [...l.slice(0, l.indexOf('='))]"
            ".reduce((n, c) => n + (/[\\u1100-\\u11ff\\u3130-\\u318f\\uac00-\\ud7a3]/.test(c) ? 2 : 1), 0))"
        )
        lefts = pre.evaluate(EQUALS_COLUMNS)
        column_width = pre.evaluate(
            "pre => { const probe = document.createElement('span'); probe.textContent = '0'.repeat(10);"
            " pre.querySelector('code').append(probe); const w = probe.getBoundingClientRect().width / 10;"
            " probe.remove(); return w; }"
        )
    assert len(lefts) >= 2
    # Where the source puts "=" in the same column (a syllable counted as two), the page draws it at the same x.
    origin = lefts[0] - source_columns[0] * column_width
    for column, left in zip(source_columns, lefts, strict=True):
        assert left == pytest.approx(origin + column * column_width, abs=1.0)


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_wide_table_scrolls_in_its_own_labelled_region_on_a_phone(
    browser: Browser, live_server: str, lang: str, color_scheme: ColorScheme, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, color_scheme=color_scheme, width=375, height=800) as page:
        page.goto(f"{live_server}/{lang}/guides/nvlink")
        region = page.locator(".table-scroll").first
        region.scroll_into_view_if_needed()
        heading = region.evaluate(
            "r => { let e = r.previousElementSibling;"
            " while (!/^H[1-6]$/.test(e.tagName)) { e = e.previousElementSibling; } return e.textContent; }"
        )
        expect(region).to_have_attribute("role", "region")
        expect(region).to_have_attribute("tabindex", "0")
        expect(region).to_have_accessible_name(heading)
        assert horizontal_overflow_px(page) <= 0
        assert region.evaluate("r => r.scrollWidth > r.clientWidth")
        assert "radial-gradient" in region.evaluate("r => getComputedStyle(r).backgroundImage")  # the shadow cue
        assert region.locator("table").evaluate(BROKEN_WORDS) == []
        save_screenshot(page, screenshot_dir, f"table-{lang}-{color_scheme}-375", full_page=False)

        # A keyboard user reaches the region from the link before it and scrolls it with the arrow keys.
        region.evaluate(FOCUS_THE_LINK_BEFORE)
        page.keyboard.press("Tab")
        expect(region).to_be_focused()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => document.querySelector('.table-scroll').scrollLeft > 0")
        violations = run_axe(page)
    assert violations == [], describe(violations)


@pytest.mark.parametrize("width", [320, 375])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_header_is_one_line_on_a_phone(browser: Browser, live_server: str, lang: str, width: int) -> None:
    other = {"en": "한국어", "ko": "English"}[lang]
    with open_page(browser, language=lang, width=width, height=700) as page:
        page.goto(f"{live_server}/{lang}/guides/nvlink")
        header = page.locator(".site-header")
        box = header.bounding_box()
        assert box is not None
        assert box["height"] <= 60
        brand = page.locator(".brand")
        items = [
            brand.locator("img"),
            page.locator(".site-nav a").first,
            page.locator(".site-nav a").last,
            page.get_by_role("link", name=other, exact=True),
        ]
        centres = []
        for item in items:
            expect(item).to_be_visible()
            item_box = item.bounding_box()
            assert item_box is not None
            assert item_box["x"] >= 0
            assert item_box["x"] + item_box["width"] <= width
            centres.append(item_box["y"] + item_box["height"] / 2)
        assert max(centres) - min(centres) <= 6
        assert horizontal_overflow_px(page) <= 0
        # What no longer shows is still the link's name: the course title in full.
        expect(brand).to_have_accessible_name(page.locator(".eyebrow a").inner_text())


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_on_a_phone_the_contents_open_from_the_top_of_the_chapter(
    browser: Browser, live_server: str, lang: str, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, width=375, height=800) as page:
        page.goto(f"{live_server}/{lang}/guides/nvlink")
        toc = page.get_by_role("navigation", name=TOC_NAME[lang])
        summary = toc.locator("summary")
        risks = toc.locator('a[href="#risks"]')
        expect(summary).to_be_in_viewport()
        expect(risks).to_be_hidden()  # closed: the chapter starts right below
        summary.click()
        expect(risks).to_be_visible()
        save_screenshot(page, screenshot_dir, f"toc-{lang}-375-open", full_page=False)
        violations = run_axe(page)
        risks.click()
        expect(page).to_have_url(re.compile(r"#risks$"))
        expect(page.locator("#risks")).to_be_in_viewport()
        assert is_uncovered(page.locator("#risks"))
    assert violations == [], describe(violations)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_on_a_wide_screen_the_contents_mark_the_section_being_read(
    browser: Browser, live_server: str, lang: str, screenshot_dir: Path | None
) -> None:
    with open_page(browser, language=lang, width=1280, height=900) as page:
        page.goto(f"{live_server}/{lang}/guides/nvlink")
        toc = page.get_by_role("navigation", name=TOC_NAME[lang])
        expect(toc.locator('a[href="#risks"]')).to_be_visible()
        expect(toc.locator("a[aria-current]")).to_have_count(0)  # the reader is still above the first section

        toc.locator('a[href="#technical-insight"]').click()
        expect(toc.locator('a[href="#technical-insight"]')).to_have_attribute("aria-current", "true")
        expect(toc.locator("a[aria-current]")).to_have_count(1)
        assert is_uncovered(toc.locator('a[href="#technical-insight"]'))  # the list stays beside the text

        # Reading on: the wheel carries the reader into the next section, and the mark follows.
        following = page.locator("#real-world")
        for _ in range(60):
            if following.evaluate("h => h.getBoundingClientRect().top < window.innerHeight / 4"):
                break
            page.mouse.move(400, 500)
            page.mouse.wheel(0, 400)
            next_frames(page)
        expect(toc.locator('a[href="#real-world"]')).to_have_attribute("aria-current", "true")
        expect(toc.locator("a[aria-current]")).to_have_count(1)
        save_screenshot(page, screenshot_dir, f"toc-{lang}-1280-current", full_page=False)

        page.keyboard.press("Home")
        expect(toc.locator("a[aria-current]")).to_have_count(0)


def test_without_javascript_the_contents_are_beside_the_text_and_open_on_a_phone(
    browser: Browser, live_server: str
) -> None:
    with open_page(browser, language="ko", width=1280, javascript=False) as page:
        page.goto(f"{live_server}/ko/guides/nvlink")
        expect(page.locator('nav.toc a[href="#risks"]')).to_be_visible()
    with open_page(browser, language="ko", width=375, javascript=False) as page:
        page.goto(f"{live_server}/ko/guides/nvlink")
        page.locator("nav.toc summary").click()
        page.locator('nav.toc a[href="#risks"]').click()
        expect(page.locator("#risks")).to_be_in_viewport()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_text_is_set_in_the_system_fonts_with_a_korean_face_for_korean(
    browser: Browser, live_server: str, lang: str
) -> None:
    fonts: list[str] = []
    with open_page(browser, language=lang) as page:
        page.on("request", lambda request: fonts.append(request.url) if request.resource_type == "font" else None)
        page.goto(f"{live_server}/{lang}/guides/nvlink")
        family = page.locator(".prose p").first.evaluate("p => getComputedStyle(p).fontFamily")
        code_family = page.locator(".prose pre code").first.evaluate("c => getComputedStyle(c).fontFamily")
    assert fonts == []  # no web font, from anywhere
    if lang == "ko":
        assert family.startswith('"Noto Sans KR"')
        assert code_family.startswith("D2Coding")
    else:
        assert family.startswith("system-ui")
        assert code_family.startswith("ui-monospace")


@pytest.mark.parametrize("width", [320, 375, 1280])
@pytest.mark.parametrize("path", ["/{lang}/", "/{lang}/guides/nvlink", "/{lang}/guides/collectives"])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_no_text_is_smaller_than_12_px(browser: Browser, live_server: str, lang: str, path: str, width: int) -> None:
    with open_page(browser, language=lang, width=width) as page:
        page.goto(live_server + path.format(lang=lang))
        smallest = page.evaluate(SMALLEST_TEXT)
    assert smallest["size"] >= 12, smallest


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_pager_leads_to_the_previous_and_the_next_chapter(page: Page, live_server: str, lang: str) -> None:
    page.goto(f"{live_server}/{lang}/guides/nvswitch")
    pager = page.locator("nav.chapter-pager")
    expect(pager.locator("a[rel=prev]")).to_have_attribute("href", f"/{lang}/guides/nvlink")
    pager.locator("a[rel=next]").click()
    expect(page).to_have_url(f"{live_server}/{lang}/guides/nvl72")
    page.locator("nav.chapter-pager a[rel=prev]").click()
    expect(page).to_have_url(f"{live_server}/{lang}/guides/nvswitch")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_mention_of_another_chapter_leads_to_it(page: Page, live_server: str, lang: str) -> None:
    page.goto(f"{live_server}/{lang}/guides/nvlink")
    mention = page.locator(f'.prose a[href="/{lang}/guides/nvswitch"]').first
    mention.scroll_into_view_if_needed()
    mention.click()
    expect(page).to_have_url(f"{live_server}/{lang}/guides/nvswitch")
    expect(page.get_by_role("heading", level=1)).to_contain_text("NVSwitch")
