"""The renderer's typography and structure: what it changes in text, and what it must leave alone."""

from __future__ import annotations

import re

from app.content.markdown import render_markdown

NBSP = "\u00a0"


def html_of(source: str, links: dict[str, bool] | None = None) -> str:
    rendered = render_markdown(source, links)
    assert rendered.problems == []
    return "".join(part.html for part in rendered.body) + rendered.sources_html


def test_units_bind_in_text_headings_callout_titles_table_cells_and_link_text() -> None:
    html = html_of(
        "{#overview}\n## From 160 GB/s to 1.8 TB/s\n\n::: warning Above 450 GB/s\nCareful.\n:::\n\n"
        "NVLink 4 gives **450 GB/s** per direction; see [the 900 GB/s figure](https://example.com/a).\n\n"
        "| link | rate |\n|---|---|\n| NVLink 4 | 450 GB/s |\n"
    )
    assert f'<h2 id="overview">From 160{NBSP}GB/s to 1.8{NBSP}TB/s</h2>' in html
    assert f"<strong>450{NBSP}GB/s</strong>" in html
    assert f'<p class="callout-title">Above 450{NBSP}GB/s</p>' in html
    assert f'<a href="https://example.com/a">the 900{NBSP}GB/s figure</a>' in html
    assert f"<td>450{NBSP}GB/s</td>" in html


def test_units_stay_as_written_in_code_urls_and_attributes() -> None:
    html = html_of(
        "{#overview}\n## Overview\n\n"
        'Run `all_reduce_perf -b 8 B -e 8 GB` or read [this](https://example.com/8%20GB "8 GB").\n\n'
        "```text\nt = 1 GiB / 450 GB/s\n```\n"
    )
    assert "<code>all_reduce_perf -b 8 B -e 8 GB</code>" in html
    assert 'href="https://example.com/8%20GB"' in html
    assert 'title="8 GB"' in html
    assert "t = 1 GiB / 450 GB/s" in html
    assert NBSP not in html


def test_the_table_of_contents_carries_the_bound_heading() -> None:
    rendered = render_markdown("{#overview}\n## Beyond 72 GPUs\n")
    assert rendered.toc[0].text == f"Beyond 72{NBSP}GPUs"


def test_a_table_scrolls_in_a_region_named_after_its_heading() -> None:
    html = html_of(
        '{#overview}\n## Overview\n\n{#generations}\n### Five generations & their "rates"\n\n'
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    assert (
        '<div class="table-scroll" role="region" aria-label="Five generations &amp; their &quot;rates&quot;"'
        ' tabindex="0">\n<table>'
    ) in html
    assert html.count("</table>\n</div>") == 1


def test_a_table_without_a_heading_above_it_is_a_content_problem() -> None:
    rendered = render_markdown("Intro.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert rendered.problems == [
        (2, "a table needs a heading above it: the heading names the table's scrolling region")
    ]


def test_each_section_is_wrapped_and_the_sources_stay_outside() -> None:
    rendered = render_markdown(
        "{#overview}\n## Overview\n\nText[^a].\n\n{#detail}\n### Detail\n\nMore.\n\n"
        "::: diagram topology\n:::\n\n{#deep-dive}\n## Deep dive\n\nEnd.\n\n[^a]: [A](https://example.com/a)\n"
    )
    main = "".join(part.html for part in rendered.body)
    assert [part.diagram for part in rendered.body if part.diagram] == ["topology"]
    assert main.count('<section class="chapter-section">') == 2
    assert main.count("</section>") == 2
    assert re.search(r'<section class="chapter-section">\n<h2 id="overview">.*?<h3 id="detail">', main, re.S)
    assert main.rstrip().endswith("<p>End.</p>\n</section>")
    assert "section" not in rendered.sources_html


def test_korean_code_blocks_keep_their_columns() -> None:
    html = html_of("{#overview}\n## 개요\n\n```text\n필요한 트레이    = 9개\n```\n\n`링크 수`는 그대로입니다.\n")
    assert '<span class="wide wide-3">필요한</span> <span class="wide wide-3">트레이</span>    = 9' in html
    assert "<code>링크 수</code>" in html  # inline code is not a column layout


def test_a_citation_stays_on_the_line_of_the_word_it_follows() -> None:
    html = html_of(
        "{#overview}\n## Overview\n\nConnectX-7 카드 8개를 씁니다[^a].\n\n[^a]: [Source](https://example.com/a)\n"
    )
    assert '씁니다\u2060<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup>.' in html
