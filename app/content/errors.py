from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ContentProblem:
    """One problem in one content file, located to the line (1-based) where known."""

    path: Path
    line: int | None
    message: str

    def format(self, root: Path | None = None) -> str:
        shown = self.path
        if root is not None and self.path.is_relative_to(root):
            shown = self.path.relative_to(root)
        location = f"{shown}:{self.line}" if self.line is not None else f"{shown}"
        return f"{location}: {self.message}"


class ContentError(Exception):
    """The content cannot be served; carries every problem found, not only the first."""

    def __init__(self, problems: list[ContentProblem], root: Path | None = None) -> None:
        self.problems = problems
        self.root = root
        super().__init__("\n".join(problem.format(root) for problem in problems))


class ChapterNotFoundError(LookupError):
    """No published chapter has this slug."""
