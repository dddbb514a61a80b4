from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.content import ContentError, load_course
from app.content.loader import reading_minutes
from app.content.sections import CHAPTER_SECTIONS, MIN_FAQ_ENTRIES
from tests.unit.content.conftest import fake_figure


def load(root: Path):  # type: ignore[no-untyped-def]
    return load_course(root, fake_figure)


def problems_of(root: Path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        load(root)
    return [problem.format(root) for problem in caught.value.problems]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), "utf-8")


def line_number(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(needle)


def test_valid_course_loads_in_order_with_planned_chapters(content_dir: Path) -> None:
    course = load(content_dir)
    assert [chapter.slug for chapter in course.chapters] == ["alpha", "beta", "gamma"]
    assert [chapter.slug for chapter in course.published] == ["alpha", "beta"]
    assert course.chapters[2].planned
    assert course.titles == {"en": "Course", "ko": "강좌"}
    previous, following = course.neighbours("beta")
    assert previous is not None
    assert previous.slug == "alpha"
    assert following is None
    assert course.chapter("gamma") is None


def test_page_is_rendered_once_with_toc_figures_callouts_and_sources(content_dir: Path) -> None:
    page = load(content_dir).chapters[0].pages["en"]
    html = "".join(part.html for part in page.body)
    assert [(entry.level, entry.anchor, entry.text) for entry in page.toc][:3] == [
        (2, "overview", "Overview"),
        (3, "details", "Details"),
        (2, "deep-dive", "Deep dive"),
    ]
    assert tuple(entry.anchor for entry in page.toc if entry.level == 2) == CHAPTER_SECTIONS
    assert "carries 450\u00a0GB/s per direction" in html
    assert '<aside class="callout callout-note">' in html
    assert '<p class="callout-title">Careful</p>' in html
    assert page.diagrams == ("link-compare",)
    assert 'href="https://example.com/a"' in page.sources_html
    assert 'href="#fn1"' in html
    assert page.faq[0].question == "Why?"
    assert len(page.faq) == MIN_FAQ_ENTRIES
    assert page.reading_minutes == 1


def test_raw_html_is_escaped_and_table_alignment_uses_classes(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(path, "Units matter.", "Units <script>alert(1)</script> matter.\n\n| a | b |\n|--:|:-:|\n| 1 | 2 |")
    html = "".join(part.html for part in load(content_dir).chapters[0].pages["en"].body)
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "style=" not in html
    assert '<th class="align-right">a</th>' in html
    assert '<td class="align-center">2</td>' in html


def test_code_blocks_are_highlighted_with_classes(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(path, "Units matter.", "Units matter.\n\n```python\nsize_bytes = 2**30\n```")
    html = "".join(part.html for part in load(content_dir).chapters[0].pages["en"].body)
    assert '<pre class="highlight" tabindex="0"><code class="language-python">' in html
    assert '<span class="n">size_bytes</span>' in html


def test_figures_are_formatted_per_language(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "ko.md"
    edit(path, "{{link:nvlink4:per_direction_GBps}}", "{{system:dgx-h100:gpus_per_node}}")
    html = "".join(part.html for part in load(content_dir).chapters[0].pages["ko"].body)
    assert "carries 8\u00a0GB/s" in html


@pytest.mark.parametrize(
    ("old", "new", "needle", "message"),
    [
        ("summary: A summary.", "summary: A: summary.", "summary:", "invalid YAML: mapping values are not allowed"),
        ("updated: 2026-11-30", "updated: yesterday", "updated:", "updated: Input should be a valid date"),
        ("summary: A summary.\n", "", None, "summary: Field required"),
        ("url: https://example.com/a", "url: http://example.com/a", "url:", "sources.0.url"),
        ("title: Source A", "title: Source A\n    colour: red", "colour", "Extra inputs are not permitted"),
        ("::: note Careful", "::: sidebar Careful", "::: sidebar", "unknown directive '::: sidebar'"),
        ("::: diagram link-compare", "::: diagram link-compar", "::: diagram", "unknown diagram 'link-compar'"),
        (
            "{{link:nvlink4:per_direction_GBps}}",
            "{{link:nvlink9:per_direction_GBps}}",
            "nvlink9",
            "unknown link 'nvlink9'",
        ),
        ("{{link:nvlink4:per_direction_GBps}}", "{{nvlink4 speed}}", "nvlink4 speed", "malformed figure placeholder"),
        ("[^src-a]", "[^src-b]", "[^src-b]", "citation [^src-b] names no source"),
        ("{#details}\n", "", "### Details", "heading 'Details' needs an id"),
        ("{#details}", "{#Details_1}", "Details_1", "must be lowercase kebab-case"),
        (
            "Units matter.",
            "Units matter.\n\n```fortran77x\nx\n```",
            "fortran77x",
            "unknown code block language 'fortran77x'",
        ),
    ],
)
def test_bad_content_is_reported_with_file_and_line(
    content_dir: Path, old: str, new: str, needle: str | None, message: str
) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(path, old, new)
    found = problems_of(content_dir)
    matching = [problem for problem in found if message in problem]
    assert matching, found
    if needle is None:
        assert matching[0].startswith("guides/alpha/en.md:")
    else:
        assert matching[0].startswith(f"guides/alpha/en.md:{line_number(path, needle)}: "), matching


def test_duplicate_heading_id_points_at_the_second_id_line(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(path, "{#details}", "{#overview}")
    expected_line = line_number(path, "### Details") - 1
    assert f"guides/alpha/en.md:{expected_line}: heading id 'overview' is used twice" in problems_of(content_dir)


def test_internal_links_are_checked_and_planned_chapters_are_not_linked(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(path, "Units matter.", "See [Beta](/en/guides/beta#overview), [Gamma](/en/guides/gamma) and [home](/en/).")
    html = "".join(part.html for part in load(content_dir).chapters[0].pages["en"].body)
    assert '<a href="/en/guides/beta#overview">Beta</a>' in html
    assert '<span class="planned-chapter-link">Gamma</span>' in html
    assert '<a href="/en/">home</a>' in html
    edit(path, "[home](/en/)", "[Korean](/ko/guides/beta) [typo](/en/guides/betta)")
    found = problems_of(content_dir)
    line = line_number(path, "betta")
    assert any(p.startswith(f"guides/alpha/en.md:{line}: link to unknown page /ko/guides/beta") for p in found)
    assert any(p.startswith(f"guides/alpha/en.md:{line}: link to unknown page /en/guides/betta") for p in found)


def test_repeated_citations_show_the_source_number(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(path, "Units matter.", "Units matter[^src-a].")
    html = "".join(part.html for part in load(content_dir).chapters[0].pages["en"].body)
    assert html.count('<a href="#fn1"') == 2
    assert "[1:1]" not in html
    assert 'id="fnref1:1"' in html


def test_a_diagram_may_appear_only_once_per_page(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(path, "Units matter.", "Units matter.\n\n::: diagram link-compare\n:::\n")
    assert "guides/alpha/en.md: diagram 'link-compare' appears more than once; a page can show each diagram once" in (
        problems_of(content_dir)
    )


def test_every_problem_is_reported_not_only_the_first(content_dir: Path) -> None:
    edit(content_dir / "guides" / "alpha" / "en.md", "[^src-a]", "[^nope]")
    edit(content_dir / "guides" / "beta" / "ko.md", "::: diagram link-compare", "::: diagram nope")
    found = problems_of(content_dir)
    assert any(p.startswith("guides/alpha/en.md:") and "[^nope]" in p for p in found)
    assert any(p.startswith("guides/alpha/en.md:") and "never cited" in p for p in found)
    assert any(p.startswith("guides/beta/ko.md:") and "unknown diagram 'nope'" in p for p in found)


def test_uncited_source_points_at_its_line(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(
        path,
        "url: https://example.com/a",
        "url: https://example.com/a\n  - id: src-b\n    title: B\n    url: https://example.com/b",
    )
    expected = f"guides/alpha/en.md:{line_number(path, 'id: src-b')}: source 'src-b' is never cited"
    assert any(problem.startswith(expected) for problem in problems_of(content_dir))


def test_missing_translation(content_dir: Path) -> None:
    (content_dir / "guides" / "beta" / "ko.md").unlink()
    assert "guides/beta/ko.md: missing translation: guides/beta/ko.md does not exist" in problems_of(content_dir)


def test_sections_must_match_across_languages(content_dir: Path) -> None:
    edit(content_dir / "guides" / "alpha" / "ko.md", "{#details}", "{#detalles}")
    found = problems_of(content_dir)
    assert "guides/alpha/ko.md: sections missing compared with en.md: details" in found
    assert "guides/alpha/ko.md: sections not in en.md: detalles" in found


def test_duplicate_slug_in_course_yaml(content_dir: Path) -> None:
    path = content_dir / "course.yaml"
    edit(path, "  - slug: beta", "  - slug: alpha")
    lines = [n for n, line in enumerate(path.read_text().splitlines(), 1) if "slug: alpha" in line]
    assert f"course.yaml:{lines[1]}: duplicate chapter slug 'alpha'" in problems_of(content_dir)


def test_front_matter_must_be_present_and_closed(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    path.write_text("# No front matter\n", "utf-8")
    assert "guides/alpha/en.md:1: the file must start with front matter between '---' lines" in problems_of(content_dir)
    path.write_text("---\ntitle: x\n", "utf-8")
    assert "guides/alpha/en.md:1: the front matter is not closed by a '---' line" in problems_of(content_dir)


def test_unlisted_chapter_directory_and_planned_with_files(content_dir: Path) -> None:
    (content_dir / "guides" / "delta").mkdir()
    (content_dir / "guides" / "gamma").mkdir()
    found = problems_of(content_dir)
    assert "guides/delta: guides/delta/ is not listed in course.yaml" in found
    assert any("chapter 'gamma' is marked planned but guides/gamma/ exists" in p for p in found)


def test_course_yaml_problems(content_dir: Path) -> None:
    (content_dir / "course.yaml").write_text("title: {en: Course}\ndescription: {en: x, ko: y}\nchapters: []\n")
    found = problems_of(content_dir)
    assert any(re.match(r"course\.yaml:1: title\.ko: Field required", p) for p in found), found
    assert any(p.startswith("course.yaml:3: chapters:") for p in found), found


def test_reading_minutes_counts_words_and_hangul() -> None:
    assert reading_minutes("word " * 230) == 1
    assert reading_minutes("word " * 231) == 2
    assert reading_minutes("가" * 1000) == 2
    assert reading_minutes("") == 1


def test_a_missing_section_is_named_where_it_belongs(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(path, "{#real-world}\n## Real-world implementations\n\nWhere it runs.\n\n", "")
    expected = f"guides/alpha/en.md:{line_number(path, '{#strategic-impact}')}: section {{#real-world}} is missing"
    assert any(problem.startswith(expected) for problem in problems_of(content_dir)), problems_of(content_dir)


def test_sections_out_of_order_point_at_the_first_misplaced_one(content_dir: Path) -> None:
    path = content_dir / "guides" / "beta" / "ko.md"
    edit(path, "{#future}\n", "{#placeholder}\n")
    edit(path, "{#risks}\n", "{#future}\n")
    edit(path, "{#placeholder}\n", "{#risks}\n")
    found = problems_of(content_dir)
    expected = f"guides/beta/ko.md:{line_number(path, '{#risks}')}: section {{#risks}} is out of order: {{#future}}"
    assert [problem for problem in found if "out of order" in problem] == [
        next(problem for problem in found if problem.startswith(expected))
    ]


def test_an_extra_top_level_section_must_become_a_subsection(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(path, "{#roadmap}\n", "{#worked-example}\n## Worked example\n\nNumbers.\n\n{#roadmap}\n")
    expected = f"guides/alpha/en.md:{line_number(path, '{#worked-example}')}: '## ' section {{#worked-example}}"
    assert any(problem.startswith(expected) for problem in problems_of(content_dir))


def test_a_chapter_needs_five_faq_entries(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "ko.md"
    edit(path, "  - question: In bits?\n    answer: 3,600 Gb/s per direction.\n", "")
    assert (
        f"guides/alpha/ko.md:{line_number(path, 'faq:') + 1}: faq: the chapter needs at least 5 FAQ entries "
        "in its front matter (it has 4)"
    ) in problems_of(content_dir)


def test_a_hand_written_rate_that_contradicts_the_preset_named_next_to_it(content_dir: Path) -> None:
    path = content_dir / "guides" / "beta" / "en.md"
    edit(path, "How it works.", "Each GPU has 18 links; NVLink 5 gives 450 GB/s per direction.")
    line = line_number(path, "NVLink 5 gives")
    assert any(
        problem.startswith(f"guides/beta/en.md:{line}: '450 GB/s' next to 'NVLink 5' is no figure of the nvlink5")
        for problem in problems_of(content_dir)
    )


def test_both_languages_cite_the_same_sources(content_dir: Path) -> None:
    edit(content_dir / "guides" / "alpha" / "ko.md", "url: https://example.com/a", "url: https://example.com/b")
    assert (
        "guides/alpha/ko.md: sources differ from en.md's (differing or extra: src-a; missing: none)"
    ) in problems_of(content_dir)


def test_titles_summaries_and_answers_keep_numbers_with_their_units(content_dir: Path) -> None:
    path = content_dir / "guides" / "alpha" / "en.md"
    edit(path, "summary: A summary.", "summary: From 160 GB/s to 1.8 TB/s.")
    edit(content_dir / "course.yaml", "description: {en: About links,", "description: {en: About 72 GPUs,")
    course = load(content_dir)
    page = course.chapters[0].pages["en"]
    assert page.summary == "From 160\u00a0GB/s to 1.8\u00a0TB/s."
    assert page.faq[1].answer == "450\u00a0GB/s per direction."
    assert course.descriptions["en"] == "About 72\u00a0GPUs"
