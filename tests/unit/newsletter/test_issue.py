"""Issue files: front matter, translations beside the main file, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.newsletter.issue import IssueFileError, load_issue


def _write(path: Path, text: str) -> Path:
    path.write_text(text, "utf-8")
    return path


def test_an_issue_and_its_translation(tmp_path: Path) -> None:
    main = _write(tmp_path / "2026-12-03.md", '---\nsubject: "NVLink in one page"\n---\nHello **there**.\n')
    _write(tmp_path / "2026-12-03.ko.md", '---\nsubject: "NVLink 한눈에 보기"\n---\n안녕하세요.\n')
    issue = load_issue(main)
    assert issue.id == "2026-12-03"
    assert issue.version_for("ko").subject == "NVLink 한눈에 보기"
    assert issue.version_for("en").html == "<p>Hello <strong>there</strong>.</p>\n"
    assert issue.versions["en"].markdown == "Hello **there**.\n"


def test_without_a_translation_everyone_gets_the_main_language(tmp_path: Path) -> None:
    issue = load_issue(_write(tmp_path / "x.md", "---\nid: weekly-1\nsubject: S\n---\nBody\n"))
    assert issue.id == "weekly-1"
    assert issue.version_for("ko").language == "en"


def test_raw_html_in_the_file_is_not_passed_on(tmp_path: Path) -> None:
    issue = load_issue(_write(tmp_path / "x.md", "---\nsubject: S\n---\n<script>alert(1)</script>\n"))
    assert "<script>" not in issue.versions["en"].html


def test_a_changed_translation_changes_the_issue(tmp_path: Path) -> None:
    main = _write(tmp_path / "x.md", "---\nsubject: S\n---\nBody\n")
    before = load_issue(main).content_sha256
    _write(tmp_path / "x.ko.md", "---\nsubject: 제목\n---\n본문\n")
    assert load_issue(main).content_sha256 != before


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("No front matter\n", "front matter"),
        ("---\nsubject: [unclosed\n---\nBody\n", "not YAML"),
        ("---\ntitle: S\n---\nBody\n", "subject"),
        ('---\nsubject: "Hi\\r\\nBcc: victim@example.org"\n---\nBody\n', "line breaks"),
        ("---\nsubject: S\nlang: fr\n---\nBody\n", "lang"),
        ("---\nsubject: S\nid: ../../etc\n---\nBody\n", "id"),
    ],
)
def test_files_that_cannot_be_sent_are_refused_with_the_reason(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(IssueFileError, match=problem):
        load_issue(_write(tmp_path / "x.md", text))
