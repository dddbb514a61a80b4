"""The glossary: the course's own file holds up, a broken one is reported by file and line, and chapters link the
first use of each term."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.config import PROJECT_ROOT
from app.content import ContentError, Course, load_course
from app.content.glossary import initial, sort_key
from app.content.markdown import render_markdown
from app.content.termlinks import TermLinker
from app.i18n import LANGUAGES
from tests.unit.content.conftest import fake_figure

GLOSSARY = """\
terms:
  - id: link
    term: {en: "link", ko: "링크"}
    definition: {en: "A connection between two chips.", ko: "두 칩 사이의 연결입니다."}
    aliases: {en: ["links"], ko: []}
    section: alpha#details
    related: [nvlink]
  - id: nvlink
    term: {en: "NVLink", ko: "NVLink"}
    definition: {en: "NVIDIA's link.", ko: "NVIDIA의 링크입니다."}
    section: beta#overview
    related: [link]
"""

COURSE_DIR = PROJECT_ROOT / "content"


@pytest.fixture(scope="module")
def course() -> Course:
    return load_course(COURSE_DIR)


def with_glossary(content_dir: Path, text: str = GLOSSARY) -> Path:
    (content_dir / "glossary.yaml").write_text(text, "utf-8")
    return content_dir / "glossary.yaml"


def problems_of(content_dir: Path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        load_course(content_dir, fake_figure)
    return [problem.format(content_dir) for problem in caught.value.problems]


def line_of(path: Path, needle: str) -> int:
    return next(number for number, line in enumerate(path.read_text("utf-8").splitlines(), 1) if needle in line)


def test_the_course_glossary_has_sixty_terms_in_both_languages(course: Course) -> None:
    glossary = course.glossary
    assert len(glossary) >= 60
    assert len({entry.id for entry in glossary.entries}) == len(glossary)
    for entry in glossary.entries:
        assert set(entry.terms) == set(entry.definitions) == set(entry.aliases) == set(LANGUAGES), entry.id
        assert all(entry.terms[language].strip() for language in LANGUAGES), entry.id


def test_every_definition_is_one_to_three_sentences_and_korean_is_hapnida(course: Course) -> None:
    for entry in course.glossary.entries:
        english = re.findall(r"[.!?](?:\s|$)", entry.definitions["en"])
        korean = re.findall(r"다\.(?:\s|$)", entry.definitions["ko"])
        assert 1 <= len(english) <= 3, (entry.id, entry.definitions["en"])
        assert 1 <= len(korean) <= 3, (entry.id, entry.definitions["ko"])
        assert entry.definitions["ko"].endswith("니다."), (entry.id, "합니다체")


def test_every_reference_of_the_course_glossary_resolves(course: Course) -> None:
    for entry in course.glossary.entries:
        chapter = course.chapter(entry.chapter)
        assert chapter is not None, entry.id
        for language in LANGUAGES:
            assert chapter.pages[language].heading(entry.section), (entry.id, language)
        for related in entry.related:
            assert course.glossary.get(related) is not None, (entry.id, related)


def test_a_valid_glossary_loads_and_its_terms_link_in_chapters(content_dir: Path) -> None:
    with_glossary(content_dir)
    course = load_course(content_dir, fake_figure)
    assert [entry.id for entry in course.glossary.ordered("en")] == ["link", "nvlink"]
    html = "".join(part.html for part in course.chapters[0].pages["en"].body)
    assert html.count('href="/en/glossary#term-nvlink"') == 1
    assert '<a href="/en/glossary#term-nvlink" class="term-link">NVLink</a> 4 carries' in html


@pytest.mark.parametrize(
    ("old", "new", "needle", "message"),
    [
        ("section: alpha#details", "section: alpha#nowhere", "alpha#nowhere", "guides/alpha/en.md has no heading"),
        ("section: beta#overview", "section: gamma#overview", "gamma#overview", "no published chapter 'gamma'"),
        ("related: [nvlink]", "related: [nvlinx]", "related: [nvlinx]", "related term 'nvlinx' is not a glossary id"),
        ("related: [link]\n", "related: [nvlink]\n", "related: [nvlink]\n", "is the entry itself"),
        ('ko: "NVIDIA의 링크입니다."', "", 'definition: {en: "NVIDIA', "definition.ko: Field required"),
        ("  - id: nvlink", "  - id: link", "  - id: link\n", "duplicate glossary id 'link'"),
        ('aliases: {en: ["links"], ko: []}', 'aliases: {en: ["NVLink"], ko: []}', 'term: {en: "NVLink"', "names both"),
        ("section: alpha#details", "section: alpha", "section: alpha", "section: String should match pattern"),
    ],
)
def test_a_broken_glossary_is_reported_with_file_and_line(
    content_dir: Path, old: str, new: str, needle: str, message: str
) -> None:
    text = GLOSSARY.replace(old, new, 1) if needle != "  - id: link\n" else GLOSSARY.replace(old, new)
    path = with_glossary(content_dir, text)
    problems = problems_of(content_dir)
    matching = [problem for problem in problems if message in problem]
    assert matching, problems
    lines = [number for number, line in enumerate(text.splitlines(), 1) if needle.strip() in line]
    assert any(problem.startswith(f"glossary.yaml:{lines[-1]}:") for problem in matching), (problems, lines)
    assert path.name == "glossary.yaml"


def test_no_glossary_file_is_an_empty_glossary(content_dir: Path) -> None:
    assert len(load_course(content_dir, fake_figure).glossary) == 0


def test_index_initials_and_order() -> None:
    assert [initial(term) for term in ("대역폭", "꼬리", "링크", "NVLink", "all-reduce", "3D")] == [
        "ㄷ",
        "ㄱ",
        "ㄹ",
        "N",
        "A",
        "0–9",
    ]
    korean = sorted(["NVLink", "팻 트리", "대역폭", "가중치", "All-Reduce", "링크"], key=lambda t: sort_key(t, "ko"))
    assert korean == ["가중치", "대역폭", "링크", "팻 트리", "All-Reduce", "NVLink"]
    english = sorted(["NVLink", "busbw", "All-reduce", "fat tree"], key=lambda t: sort_key(t, "en"))
    assert english == ["All-reduce", "busbw", "fat tree", "NVLink"]


def linker(language: str = "en") -> TermLinker:
    spellings = [
        ("ring", "ring"),
        ("ll", "LL"),
        ("reduce", "Reduce"),
        ("reduce-scatter", "reduce-scatter"),
        ("reduce-scatter", "Reduce-Scatter"),
        ("tree", "트리"),
        ("bandwidth", "대역폭"),
        ("nvlink", "NVLink"),
    ]
    built = TermLinker.build(spellings, f"/{language}/glossary#term-")
    assert built is not None
    return built


def linked(source: str) -> list[tuple[str, str]]:
    html = "".join(part.html for part in render_markdown(source, terms=linker()).body)
    pattern = re.compile(r'<a href="/en/glossary#term-([a-z-]+)" class="term-link">([^<]+)</a>')
    return [(match.group(1), match.group(2)) for match in pattern.finditer(html)]


def test_only_the_first_use_in_running_text_is_linked() -> None:
    source = (
        "{#a}\n## The ring\n\nA ring, then a `ring` and [a ring](https://example.com), then a Ring again.\n\n"
        "```\nring\n```\n"
    )
    assert linked(source) == [("ring", "ring")]
    html = "".join(part.html for part in render_markdown(source, terms=linker()).body)
    assert '<h2 id="a">The ring</h2>' in html
    assert "<code>ring</code>" in html
    assert '<a href="https://example.com">a ring</a>' in html


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A string of words.", []),  # inside a word
        ("We'll see.", []),  # a capitalised spelling matches only as written
        ("Use LL here.", [("ll", "LL")]),
        ("Reduce-Scatter, then Reduce.", [("reduce-scatter", "Reduce-Scatter"), ("reduce", "Reduce")]),
        ("SEND/RECV and RING", []),  # a lower-case spelling is not an acronym
        ("NVLink는 빠릅니다.", [("nvlink", "NVLink")]),  # a particle after Latin letters
        ("대역폭은 넓고 트리입니다.", [("bandwidth", "대역폭"), ("tree", "트리")]),  # particles after Hangul
        ("스트리밍입니다.", []),  # Hangul inside a longer word
    ],
)
def test_words_are_found_where_they_start_and_end(text: str, expected: list[tuple[str, str]]) -> None:
    assert linked(f"{text}\n") == expected


def test_linking_keeps_the_chapters_figures_and_text(course: Course) -> None:
    for chapter in course.published:
        for language, page in chapter.pages.items():
            html = "".join(part.html for part in page.body)
            targets = re.findall(rf'href="/{language}/glossary#term-([a-z0-9-]+)"', html)
            assert len(targets) == len(set(targets)), (chapter.slug, language)
            assert all(course.glossary.get(target) for target in targets)
            assert len(targets) >= 10, (chapter.slug, language, "terms are linked in every chapter")
            assert "{{" not in html
