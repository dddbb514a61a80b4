"""YAML documents and front matter, validated with pydantic, with errors located to the line.

PyYAML's node tree keeps the line of every key and value; pydantic reports the path (`loc`) of a bad field.
Walking the path through the node tree turns one into the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from app.content.errors import ContentProblem

ModelT = TypeVar("ModelT", bound=BaseModel)

FENCE = "---"
# libyaml's parser (in PyYAML's wheels) reads the course about ten times faster than the pure-Python one, which
# was most of the app's start-up; the pure-Python loader is the fallback where PyYAML was built without it.
YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True, slots=True)
class SplitDocument:
    front_matter: str
    body: str
    body_first_line: int  # 1-based line number of the body's first line in the file
    front_matter_first_line: int


def split_front_matter(path: Path, text: str) -> SplitDocument:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != FENCE:
        raise _problem(path, 1, "the file must start with front matter between '---' lines")
    for index in range(1, len(lines)):
        if lines[index].strip() == FENCE:
            return SplitDocument(
                front_matter="".join(lines[1:index]),
                body="".join(lines[index + 1 :]),
                body_first_line=index + 2,
                front_matter_first_line=2,
            )
    raise _problem(path, 1, "the front matter is not closed by a '---' line")


class ContentProblemsError(Exception):
    def __init__(self, problems: list[ContentProblem]) -> None:
        super().__init__("; ".join(problem.message for problem in problems))
        self.problems = problems


def _problem(path: Path, line: int | None, message: str) -> ContentProblemsError:
    return ContentProblemsError([ContentProblem(path, line, message)])


def parse_yaml(path: Path, text: str, model: type[ModelT], first_line: int = 1) -> tuple[ModelT, yaml.Node]:
    """Parse and validate `text`; raise ContentProblemsError naming the file, line and field of every problem."""
    try:
        node = yaml.compose(text, Loader=YAML_LOADER)
        data = yaml.load(text, Loader=YAML_LOADER)  # noqa: S506  (a safe loader: plain data only)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = first_line + mark.line if mark is not None else None
        raise _problem(path, line, f"invalid YAML: {error.problem or error.context}") from error
    if node is None:
        raise _problem(path, first_line, "the document is empty")
    try:
        return model.model_validate(data), node
    except ValidationError as error:
        problems = []
        for detail in error.errors():
            location = tuple(detail["loc"])
            line = line_of(node, location)
            field = ".".join(str(part) for part in location) or "document"
            problems.append(ContentProblem(path, first_line + line, f"{field}: {detail['msg']}"))
        raise ContentProblemsError(problems) from error


def line_of(node: yaml.Node, location: tuple[Any, ...]) -> int:
    """0-based line of the value at `location`, or of the nearest ancestor that exists."""
    current = node
    for part in location:
        child = _child(current, part)
        if child is None:
            break
        current = child
    return int(current.start_mark.line)


def _child(node: yaml.Node, key: Any) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if key_node.value == str(key):
                return value_node  # type: ignore[no-any-return]
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        return node.value[key]  # type: ignore[no-any-return]
    return None
