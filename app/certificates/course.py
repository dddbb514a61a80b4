"""What a credential says of the course, and the version of the content a certificate was earned on."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Course:
    """What the credential says of the course, per language, and the version of its content."""

    titles: Mapping[str, str]
    descriptions: Mapping[str, str]
    version: str


def content_version(directory: Path) -> str:
    """SHA-256 over every file under content/ (relative path and bytes, in path order): the course version a
    certificate was earned on."""
    digest = hashlib.sha256()
    for path in sorted(item for item in directory.rglob("*") if item.is_file()):
        relative = path.relative_to(directory).as_posix().encode("utf-8")
        digest.update(len(relative).to_bytes(4, "big") + relative)
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return f"sha256:{digest.hexdigest()}"
