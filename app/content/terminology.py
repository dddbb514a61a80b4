"""The Korean term sheet (content/terms-ko.yaml): one rendering per term, and the renderings that must not appear.

The sheet is data so that one check holds every Korean text to it: each chapter's ko.md (outside code, where a
quoted tool's output keeps its own words) and every `ko:` string of the quiz banks, the exam and the glossary. A
glossary entry's `aliases` are exempt: they are the other spellings a learner may type, which search and term
links must still recognise. A rendering is flagged wherever it occurs, so the sheet flags only words that are
wrong in every sense; Korean has no spaces inside compounds to anchor a word boundary on, so a match is a plain
substring, which is what makes 이더넷 inside 이더넷의 or 이더넷으로 count.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import Field

from app.content.errors import ContentProblem
from app.content.frontmatter import ContentProblemsError, parse_yaml
from app.validation import StrictModel

TERMS_FILE = "terms-ko.yaml"
_LANGUAGE = "ko"
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"`[^`]*`")
_EXEMPT_KEYS = frozenset({"aliases"})


class _TermModel(StrictModel):
    en: str = Field(min_length=1)
    ko: str = Field(min_length=1)
    flag: list[str] = Field(default_factory=list)
    note: str | None = None


class _PendingModel(StrictModel):
    file: str = Field(min_length=1)
    issue: int = Field(ge=1)


class _SheetModel(StrictModel):
    terms: list[_TermModel] = Field(min_length=1)
    pending: list[_PendingModel] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Finding:
    """A flagged rendering found in one Korean text."""

    path: Path
    line: int  # 1-based
    found: str
    english: str
    rendering: str

    def problem(self) -> ContentProblem:
        return ContentProblem(
            self.path,
            self.line,
            f"'{self.found}' for {self.english}: the term sheet ({TERMS_FILE}) writes '{self.rendering}'",
        )


@dataclass(frozen=True, slots=True)
class TermCheck:
    """What the sheet says about the course's Korean: findings that are problems, and those the sheet defers."""

    problems: tuple[ContentProblem, ...]
    pending: tuple[Finding, ...]


def check_terms(content_dir: Path) -> TermCheck:
    """Hold every Korean text under `content_dir` to its term sheet; a course without a sheet has nothing to check."""
    sheet_path = content_dir / TERMS_FILE
    if not sheet_path.is_file():
        return TermCheck((), ())
    try:
        sheet, _ = parse_yaml(sheet_path, sheet_path.read_text("utf-8"), _SheetModel)
    except ContentProblemsError as raised:
        return TermCheck(tuple(raised.problems), ())
    flags = [(flagged, term.en, term.ko) for term in sheet.terms for flagged in term.flag]
    deferred = {content_dir / entry.file for entry in sheet.pending}
    problems: list[ContentProblem] = []
    pending: list[Finding] = []
    for path in _korean_files(content_dir):
        for line, text in _korean_texts(path):
            for flagged, english, rendering in flags:
                if flagged in text:
                    finding = Finding(path, line, flagged, english, rendering)
                    if path in deferred:
                        pending.append(finding)
                    else:
                        problems.append(finding.problem())
    return TermCheck(tuple(problems), tuple(pending))


def _korean_files(content_dir: Path) -> Iterator[Path]:
    guides = content_dir / "guides"
    if guides.is_dir():
        for chapter in sorted(path for path in guides.iterdir() if path.is_dir()):
            yield from (path for path in (chapter / f"{_LANGUAGE}.md", chapter / "quiz.yaml") if path.is_file())
    yield from (path for path in (content_dir / "exam.yaml", content_dir / "glossary.yaml") if path.is_file())


def _korean_texts(path: Path) -> Iterator[tuple[int, str]]:
    """(1-based line, text) for each Korean text of a chapter page or a YAML file."""
    text = path.read_text("utf-8")
    if path.suffix == ".md":
        yield from _prose_lines(text)
        return
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return  # the file's own loader reports its syntax, with the line
    if root is not None:
        yield from _ko_strings(root)


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    in_code = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if not in_code:
            yield number, _INLINE_CODE.sub("", line)


def _ko_strings(node: yaml.Node, under_ko: bool = False) -> Iterator[tuple[int, str]]:
    if isinstance(node, yaml.ScalarNode):
        if under_ko:
            yield int(node.start_mark.line) + 1, str(node.value)
    elif isinstance(node, yaml.SequenceNode):
        for child in node.value:
            yield from _ko_strings(child, under_ko)
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.value in _EXEMPT_KEYS:
                continue
            yield from _ko_strings(value, under_ko or key.value == _LANGUAGE)
