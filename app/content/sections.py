"""The shape every chapter shares: the same `##` sections in the same order, and a FAQ of at least five entries.

Learners move between chapters by section (the quiz review links to them, the table of contents lists them), and
a fixed order keeps each chapter answering the same questions: what it is, how it works, what it means in
practice, what it costs, where it goes, what can go wrong, how to roll it out.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.content.models import TocEntry

CHAPTER_SECTIONS: tuple[str, ...] = (
    "overview",
    "deep-dive",
    "technical-insight",
    "real-world",
    "strategic-impact",
    "future",
    "risks",
    "roadmap",
)
MIN_FAQ_ENTRIES = 5

_ORDER = ", ".join(CHAPTER_SECTIONS)


def section_problems(toc: Sequence[TocEntry], body: str) -> list[tuple[int | None, str]]:
    """(0-based body line, message) for every way the `##` headings depart from CHAPTER_SECTIONS."""
    lines = body.split("\n")

    def line_of(anchor: str) -> int | None:
        marker = f"{{#{anchor}}}"
        return next((index for index, line in enumerate(lines) if line.strip() == marker), None)

    problems: list[tuple[int | None, str]] = []
    sections = [entry.anchor for entry in toc if entry.level == 2]
    for anchor in sections:
        if anchor not in CHAPTER_SECTIONS:
            problems.append(
                (
                    line_of(anchor),
                    f"'## ' section {{#{anchor}}} is not one of the chapter sections ({_ORDER}); "
                    "make it a '### ' subsection of one of them",
                )
            )
    # A repeated id is reported by the Markdown pass; here each section counts once, where it first appears.
    present = list(dict.fromkeys(anchor for anchor in sections if anchor in CHAPTER_SECTIONS))
    for position, anchor in enumerate(CHAPTER_SECTIONS):
        if anchor in present:
            continue
        following = next((later for later in CHAPTER_SECTIONS[position + 1 :] if later in present), None)
        where = line_of(following) if following is not None else None
        problems.append((where, f"section {{#{anchor}}} is missing: every chapter has '## ' sections {_ORDER}"))
    expected = [anchor for anchor in CHAPTER_SECTIONS if anchor in present]
    for anchor, wanted in zip(present, expected, strict=True):
        if anchor != wanted:
            problems.append(
                (
                    line_of(anchor),
                    f"section {{#{anchor}}} is out of order: {{#{wanted}}} comes here (the order is {_ORDER})",
                )
            )
            break
    return problems


def faq_problem(entries: int) -> str | None:
    if entries >= MIN_FAQ_ENTRIES:
        return None
    return f"faq: the chapter needs at least {MIN_FAQ_ENTRIES} FAQ entries in its front matter (it has {entries})"
