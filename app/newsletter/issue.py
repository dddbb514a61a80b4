"""An issue as the operator writes it: FILE.md in its language (front matter `lang`, default en) and, beside it,
its translations FILE.<lang>.md. Each starts with front matter giving its `subject` (and the main file may set
the issue's `id`, by default the file's name):

    ---
    id: 2026-12-03
    subject: "NVLink 5 in one page"
    ---
    Markdown …

A subscriber gets the issue in their language when a translation exists, else in the main file's.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

from app.i18n import LANGUAGES
from app.newsletter.mail import IssueVersion
from app.newsletter.models import ISSUE_ID_LENGTH, SUBJECT_LENGTH

_FRONT_MATTER = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.DOTALL)
_ISSUE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class IssueFileError(ValueError):
    """The file cannot be sent as an issue; the message names the file and the problem."""


@dataclass(frozen=True, slots=True)
class IssueFile:
    id: str
    language: str  # the main file's
    versions: dict[str, IssueVersion]
    content_sha256: str  # over every version: a changed translation is a changed issue

    def version_for(self, language: str) -> IssueVersion:
        return self.versions.get(language) or self.versions[self.language]


def _render() -> MarkdownIt:
    # No raw HTML from the file: an issue's HTML is what Markdown makes of it, links included.
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _read(path: Path) -> tuple[dict[str, object], str]:
    try:
        source = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise IssueFileError(f"{path}: cannot be read as UTF-8 text ({error})") from error
    match = _FRONT_MATTER.match(source)
    if match is None:
        raise IssueFileError(f"{path}: starts with no front matter (--- subject: … ---)")
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as error:
        raise IssueFileError(f"{path}: front matter is not YAML: {error}") from error
    if not isinstance(meta, dict):
        raise IssueFileError(f"{path}: front matter is not a mapping")
    return meta, source[match.end() :]


def _subject(path: Path, meta: dict[str, object]) -> str:
    subject = meta.get("subject")
    if not isinstance(subject, str) or not subject.strip():
        raise IssueFileError(f"{path}: front matter needs a subject")
    if any(ord(character) < 32 or character in "\u2028\u2029\x7f" for character in subject):
        raise IssueFileError(f"{path}: the subject cannot contain line breaks or control characters")
    if len(subject) > SUBJECT_LENGTH:
        raise IssueFileError(f"{path}: the subject is longer than {SUBJECT_LENGTH} characters")
    return subject.strip()


def load_issue(path: Path) -> IssueFile:
    meta, body = _read(path)
    language = str(meta.get("lang", "en"))
    if language not in LANGUAGES:
        raise IssueFileError(f"{path}: lang must be one of {', '.join(LANGUAGES)}")
    issue_id = str(meta.get("id", path.stem))
    if not _ISSUE_ID.fullmatch(issue_id) or len(issue_id) > ISSUE_ID_LENGTH:
        raise IssueFileError(f"{path}: id must be letters, digits, '.', '_' or '-' (at most {ISSUE_ID_LENGTH})")
    markdown = _render()
    versions = {language: IssueVersion(language, _subject(path, meta), body, markdown.render(body))}
    for other in LANGUAGES:
        translated = path.with_name(f"{path.stem}.{other}{path.suffix}")
        if other == language or not translated.is_file():
            continue
        other_meta, other_body = _read(translated)
        versions[other] = IssueVersion(other, _subject(translated, other_meta), other_body, markdown.render(other_body))
    digest = hashlib.sha256()
    for code in sorted(versions):
        version = versions[code]
        for part in (code, version.subject, version.markdown):
            encoded = part.encode("utf-8")
            digest.update(len(encoded).to_bytes(8, "big") + encoded)
    return IssueFile(issue_id, language, versions, digest.hexdigest())
