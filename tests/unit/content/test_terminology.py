"""The Korean term sheet: a flagged rendering in any Korean text is a problem at its line; code, English text and
glossary aliases are not Korean prose; a pending file is reported but does not stop the course; the course's own
sheet holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.config import PROJECT_ROOT
from app.content import ContentError, load_course
from app.content.terminology import TERMS_FILE, check_terms
from tests.unit.content.conftest import fake_figure

SHEET = """\
terms:
  - en: Ethernet
    ko: Ethernet
    flag: [이더넷]
  - {en: latency, ko: 지연 시간, flag: [레이턴시]}
  - {en: bandwidth, ko: 대역폭}
"""

QUIZ = """\
questions:
  - id: one
    prompt: {en: "Which Ethernet?", ko: "어느 이더넷입니까?"}
    options:
      - text: {en: "RoCE", ko: "RoCE"}
      - text: {en: "Also 이더넷 in English text", ko: "InfiniBand"}
    explanation:
      ko: |
        첫 줄은 맞습니다.
        레이턴시가 둘째 줄에 있습니다.
"""

GLOSSARY = """\
terms:
  - id: latency
    term: {en: "latency", ko: "지연 시간"}
    definition: {en: "Time.", ko: "이더넷에서도 시간입니다."}
    aliases: {en: [], ko: ["레이턴시"]}
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, "utf-8")
    return path


def problems_of(root: Path) -> list[str]:
    return [problem.format(root) for problem in check_terms(root).problems]


@pytest.fixture
def sheet_dir(content_dir: Path) -> Path:
    write(content_dir / TERMS_FILE, SHEET)
    return content_dir


def test_a_flagged_rendering_in_a_chapter_is_a_problem_at_its_line(sheet_dir: Path) -> None:
    page = sheet_dir / "guides" / "alpha" / "ko.md"
    text = page.read_text("utf-8").replace("How it works.", "RoCE는 이더넷으로 RDMA를 나릅니다.")
    write(page, text)
    line = next(number for number, row in enumerate(text.splitlines(), 1) if "이더넷으로" in row)
    assert problems_of(sheet_dir) == [
        f"guides/alpha/ko.md:{line}: '이더넷' for Ethernet: the term sheet (terms-ko.yaml) writes 'Ethernet'"
    ]
    with pytest.raises(ContentError) as caught:
        load_course(sheet_dir, fake_figure)
    assert any("'이더넷' for Ethernet" in problem.message for problem in caught.value.problems)


def test_code_and_the_english_page_are_not_checked(sheet_dir: Path) -> None:
    page = sheet_dir / "guides" / "alpha" / "ko.md"
    quoted = "```\n레이턴시  12.3 us\n```\n\n도구는 `레이턴시`라고 찍습니다.\n"
    write(page, page.read_text("utf-8").replace("How it works.\n", "How it works.\n\n" + quoted))
    english = sheet_dir / "guides" / "alpha" / "en.md"
    write(english, english.read_text("utf-8").replace("How it works.", "이더넷 quoted in English."))
    assert problems_of(sheet_dir) == []
    load_course(sheet_dir, fake_figure)


def test_yaml_korean_strings_are_checked_with_lines_and_aliases_are_exempt(sheet_dir: Path) -> None:
    write(sheet_dir / "guides" / "alpha" / "quiz.yaml", QUIZ)
    write(sheet_dir / "glossary.yaml", GLOSSARY)
    # The block scalar is located at its first line: the finding names where the string starts.
    assert problems_of(sheet_dir) == [
        "guides/alpha/quiz.yaml:3: '이더넷' for Ethernet: the term sheet (terms-ko.yaml) writes 'Ethernet'",
        "guides/alpha/quiz.yaml:8: '레이턴시' for latency: the term sheet (terms-ko.yaml) writes '지연 시간'",
        "glossary.yaml:4: '이더넷' for Ethernet: the term sheet (terms-ko.yaml) writes 'Ethernet'",
    ]


def test_a_pending_file_is_reported_without_being_a_problem(sheet_dir: Path) -> None:
    write(sheet_dir / "exam.yaml", QUIZ)
    write(sheet_dir / TERMS_FILE, SHEET + "pending:\n  - {file: exam.yaml, issue: 24}\n")
    check = check_terms(sheet_dir)
    assert check.problems == ()
    assert [(finding.path.name, finding.line, finding.found) for finding in check.pending] == [
        ("exam.yaml", 3, "이더넷"),
        ("exam.yaml", 8, "레이턴시"),
    ]


def test_a_malformed_sheet_is_a_problem_of_the_sheet(sheet_dir: Path) -> None:
    write(sheet_dir / TERMS_FILE, "terms:\n  - {en: Ethernet, flag: [이더넷]}\n")
    problems = problems_of(sheet_dir)
    assert len(problems) == 1
    assert problems[0].startswith("terms-ko.yaml:2: terms.0.ko: Field required")


def test_a_course_without_a_sheet_has_nothing_to_check(content_dir: Path) -> None:
    write(content_dir / "guides" / "alpha" / "quiz.yaml", QUIZ)
    assert check_terms(content_dir).problems == ()


def test_the_course_holds_to_its_own_sheet_and_the_cli_lists_what_is_pending() -> None:
    content = PROJECT_ROOT / "content"
    check = check_terms(content)
    assert check.problems == ()
    result = CliRunner().invoke(cli, ["content", "check", "--directory", str(content)])
    assert result.exit_code == 0, result.output
    assert result.output.count("note (pending):") == len(check.pending)
