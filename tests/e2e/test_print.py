"""Paper (issue 27, item 5): every chapter printed to PDF by Chromium, in both languages, on A4. No line is cut at
the page's edge (code and tables wrap or shrink to the column), no page is blank or holds only a caption, and the
page count fits the amount of text (poppler's pdftotext reads each page back)."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.browser import open_page

# A4 is 210 mm wide and print.css sets 16 mm side margins: a 178 mm column, 672.8 CSS pixels (96 per inch).
PRINT_COLUMN_PX = 178 / 25.4 * 96
# Less than this on a page that is not the last one is a page the reader turns for nothing: a stray caption, a
# heading cut from its text, a figure's last line. A page of 11 pt text holds about 3,000 characters; the
# thinnest full page the chapters have, a figure with its caption, holds over 300.
THIN_PAGE_CHARS = 200
# Pages per 1,000 characters of text (spaces not counted) may not exceed this. 11 pt text fills a page with about
# 3,000 Latin letters or 1,700 Hangul syllables, and figures take room of their own: the chapters printed at
# 0.75-0.87 pages per 1,000 characters in English and 1.0-1.16 in Korean (December 2026). Blank pages, or a figure
# alone on each page, would push them past these.
MOST_PAGES_PER_1000_CHARS = {"en": 1.0, "ko": 1.4}
# Elements whose right edge past the column would be cut off on paper.
CUT_OFF = """column => [...document.querySelectorAll('main *')]
    .filter(element => element.getClientRects().length > 0)
    .filter(element => element.getBoundingClientRect().right > column + 1)
    .map(element => element.tagName.toLowerCase() + '.' + element.className + ' ' +
        Math.round(element.getBoundingClientRect().right) + 'px: ' + (element.textContent || '').slice(0, 60))
    .slice(0, 10)"""


def pdftotext(pdf: Path, page_number: int) -> str:
    run = subprocess.run(
        ["pdftotext", "-layout", "-f", str(page_number), "-l", str(page_number), str(pdf), "-"],
        check=True,
        capture_output=True,
        text=True,
    )
    return run.stdout


def page_count(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))


def chapter_paths(page: Page, base_url: str, lang: str) -> list[str]:
    page.goto(f"{base_url}/{lang}/")
    paths: list[str] = page.locator(".chapter-card-title a").evaluate_all("links => links.map(l => l.pathname)")
    assert len(paths) == 7, paths
    return paths


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_chapter_prints_whole_without_blank_or_caption_only_pages(
    browser: Browser, live_server: str, lang: str, tmp_path: Path, screenshot_dir: Path | None
) -> None:
    assert shutil.which("pdftotext"), "poppler-utils (apt) reads the PDFs back"
    assert shutil.which("pdfinfo"), "poppler-utils (apt) reads the PDFs back"
    with open_page(browser, language=lang, width=round(PRINT_COLUMN_PX), height=1000) as page:
        for path in chapter_paths(page, live_server, lang):
            page.goto(live_server + path)
            page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")  # as Ctrl+P: every figure built
            page.emulate_media(media="print")
            cut: list[str] = page.evaluate(CUT_OFF, PRINT_COLUMN_PX)
            assert cut == [], f"{path}: cut off at the page's edge: {cut}"
            pdf = tmp_path / f"{path.strip('/').replace('/', '-')}.pdf"
            page.pdf(path=str(pdf), format="A4")
            page.emulate_media(media="screen")
            pages = page_count(pdf)
            texts = [pdftotext(pdf, number) for number in range(1, pages + 1)]
            characters = sum(len("".join(text.split())) for text in texts)
            thin = [
                (number, text.strip()[:80])
                for number, text in enumerate(texts[:-1], 1)
                if len(text.split()) == 0 or len("".join(text.split())) < THIN_PAGE_CHARS
            ]
            assert thin == [], f"{path}: pages with (almost) nothing on them: {thin}"
            assert pages <= math.ceil(MOST_PAGES_PER_1000_CHARS[lang] * characters / 1000), (path, pages, characters)
            print(f"{path}: {pages} pages, {characters} characters")  # the figures, with -s
            if screenshot_dir is not None:
                shutil.copy(pdf, screenshot_dir / pdf.name)
