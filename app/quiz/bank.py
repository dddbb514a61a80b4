"""Question banks: content/guides/<slug>/quiz.yaml and content/exam.yaml, validated at start-up.

Both languages live in one file, so a question cannot exist in English only. Validation reports every problem
with the file and line, like the rest of the content: each text in en and ko, exactly one correct option for
`single`, at least one for `multiple`, the tested section exists in the chapter, numeric parameters are
accepted by the simulator for every combination that can be drawn, placeholders in the text are parameters.
A chapter quiz has at least MIN_CHAPTER_QUESTIONS questions, MIN_CHAPTER_NUMERIC of them numeric; no bank gives
its answers away by option length, and no exam question repeats a practice question (app/quiz/cues.py).
"""

from __future__ import annotations

import itertools
import math
import random
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Literal

import yaml
from pydantic import Field, model_validator

from app import simulator
from app.content import ContentError, ContentProblem, Course
from app.content.frontmatter import ContentProblemsError, line_of, parse_yaml
from app.formatting import exact, exact_binary_size
from app.i18n import LANGUAGES
from app.quiz.cues import correct_count_cue, length_cues, repeated_questions
from app.quiz.units import QuantityError, unit_named
from app.simulator.models import MODELS, Computed, Dimension, ParameterValue, compute
from app.validation import KEBAB_ID_PATTERN, StrictModel

EXAM_ID = "exam"
MAX_COMBINATIONS = 512
MIN_CHAPTER_QUESTIONS = 10
MIN_CHAPTER_NUMERIC = 3
MIN_EXAM_PROMPTS = 50
MIN_CALIBRATED_TOLERANCE = 10.0
CALIBRATED_BY_DEFAULT = frozenset({"training_allreduce_time", "training_comm_fraction"})  # without `mode`
QuestionType = Literal["single", "multiple", "numeric"]
MISCONCEPTIONS: tuple[str, ...] = (
    "direction",
    "bits-bytes",
    "gb-gib",
    "per-link",
    "busbw-algbw",
    "per-nic",
    "line-rate",
    "prefix",
    "topology",
    "scope",
)


# --- YAML schema ---------------------------------------------------------------------------------------------


class TextModel(StrictModel):
    en: str = Field(min_length=1)
    ko: str = Field(min_length=1)


class OptionModel(StrictModel):
    text: TextModel
    correct: bool = False
    misconception: Literal[MISCONCEPTIONS] | None = None  # type: ignore[valid-type]
    feedback: TextModel | None = None


class RangeModel(StrictModel):
    """A whole-number parameter drawn per attempt: a multiple of `step` in [min, max], uniformly."""

    min: int = Field(ge=1)
    max: int = Field(ge=1)
    step: int = Field(default=1, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> RangeModel:
        if self.max < self.min:
            raise ValueError("max must not be below min")
        if self.max // self.step < -(-self.min // self.step):
            raise ValueError("no multiple of step lies between min and max")
        return self


class ComputeModel(StrictModel):
    model: Literal[tuple(MODELS)]  # type: ignore[valid-type]


class QuestionModel(StrictModel):
    id: str = Field(pattern=KEBAB_ID_PATTERN, max_length=64)
    type: QuestionType
    chapter: str | None = None
    section: str = Field(min_length=1)
    prompt: TextModel
    options: list[OptionModel] = Field(default_factory=list)
    unit: str | None = None
    tolerance_percent: float = Field(default=1.0, gt=0, le=25)
    # A look-up: the prompt's own figures, put into one simulator call or one table row, give the answer. The
    # exam may hold a few; the draw does not count them among the worked questions an attempt must include.
    lookup: bool = False
    parameters: dict[str, ParameterValue | list[ParameterValue] | RangeModel] = Field(default_factory=dict)
    compute: ComputeModel | None = None
    explanation: TextModel

    @model_validator(mode="after")
    def _shape(self) -> QuestionModel:
        if self.type == "numeric":
            if self.options:
                raise ValueError("a numeric question has no options")
            if self.unit is None or self.compute is None:
                raise ValueError("a numeric question needs a unit and a compute model")
        else:
            if len(self.options) < 2:
                raise ValueError(f"a {self.type} question needs at least two options")
            correct = sum(option.correct for option in self.options)
            if self.type == "single" and correct != 1:
                raise ValueError(f"a single-choice question needs exactly one correct option (found {correct})")
            if self.type == "multiple" and correct < 1:
                raise ValueError("a multiple-choice question needs at least one correct option")
            if self.unit is not None or self.compute is not None or self.parameters or self.lookup:
                raise ValueError("only numeric questions have a unit, parameters, a compute model or `lookup`")
        return self


class QuizModel(StrictModel):
    title: TextModel
    pass_percent: int = Field(ge=1, le=100)
    draw: int | None = Field(default=None, ge=1)
    time_limit_minutes: int | None = Field(default=None, ge=1, le=24 * 60)
    attempts_per_day: int | None = Field(default=None, ge=1)
    minutes_between_attempts: int | None = Field(default=None, ge=0)
    questions: list[QuestionModel] = Field(min_length=1)


# --- the validated, immutable bank ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Text:
    en: str
    ko: str

    def get(self, language: str) -> str:
        return self.ko if language == "ko" else self.en


@dataclass(frozen=True, slots=True)
class ParameterRange:
    """Multiples of `step` from `minimum` to `maximum`, each equally likely, so that a value seen in one attempt
    rarely recurs in another (log-uniform drawing was tried: it makes the smallest multiples common)."""

    minimum: int
    maximum: int
    step: int

    @property
    def _bounds(self) -> tuple[int, int]:
        return -(-self.minimum // self.step), self.maximum // self.step

    @property
    def variants(self) -> int:
        low, high = self._bounds
        return high - low + 1

    def draw(self, rng: random.Random) -> int:
        low, high = self._bounds
        return rng.randint(low, high) * self.step

    def probes(self) -> tuple[int, ...]:
        """The values validation tries: both ends and the geometric middle."""
        low, high = self._bounds
        middle = round(math.sqrt(low * high))
        return tuple(sorted({low * self.step, middle * self.step, high * self.step}))


ParameterValues = tuple[ParameterValue, ...] | ParameterRange


def draw_parameter(values: ParameterValues, rng: random.Random) -> ParameterValue:
    return values.draw(rng) if isinstance(values, ParameterRange) else rng.choice(values)


def probe_values(values: ParameterValues) -> tuple[ParameterValue, ...]:
    return values.probes() if isinstance(values, ParameterRange) else values


@dataclass(frozen=True, slots=True)
class Option:
    text: Text
    correct: bool
    misconception: str | None
    feedback: Text | None


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    type: QuestionType
    chapter: str
    section: str
    prompt: Text
    options: tuple[Option, ...]
    explanation: Text
    unit: str | None = None
    tolerance_percent: float = 1.0
    parameters: Mapping[str, ParameterValues] = field(default_factory=lambda: MappingProxyType({}))
    model: str | None = None
    lookup: bool = False
    # A sample quantity for the input's hint, in `unit`: a power of ten at least 100 times every answer the
    # parameters can produce, so the example shows the format and can never be the answer.
    hint_value: float | None = None

    @property
    def worked(self) -> bool:
        """A numeric question that takes a step the course teaches, beyond copying the prompt into the lab."""
        return self.type == "numeric" and not self.lookup

    @property
    def prompt_variants(self) -> int:
        """How many different prompts the parameters can draw."""
        return math.prod(
            values.variants if isinstance(values, ParameterRange) else len(values)
            for values in self.parameters.values()
        )

    @property
    def correct_indexes(self) -> frozenset[int]:
        return frozenset(index for index, option in enumerate(self.options) if option.correct)

    def compute(self, drawn: Mapping[str, ParameterValue]) -> Computed:
        assert self.model is not None
        return compute(self.model, drawn)

    def combinations(self) -> Iterator[dict[str, ParameterValue]]:
        """Every combination of listed values, with a range's ends and middle standing for the range."""
        names = sorted(self.parameters)
        for values in itertools.product(*(probe_values(self.parameters[name]) for name in names)):
            yield dict(zip(names, values, strict=True))


@dataclass(frozen=True, slots=True, eq=False)  # compared and hashed by identity: a loaded bank is one object
class Quiz:
    id: str
    chapter: str | None  # None for the final exam
    title: Text
    pass_percent: int
    questions: tuple[Question, ...]
    draw: int  # questions per attempt
    min_worked: int  # at least this many drawn questions are worked numeric ones (Question.worked)
    time_limit_s: int | None = None
    attempts_per_day: int | None = None
    seconds_between_attempts: int = 0

    @property
    def is_exam(self) -> bool:
        return self.id == EXAM_ID

    def question(self, question_id: str) -> Question | None:
        for question in self.questions:
            if question.id == question_id:
                return question
        return None


@dataclass(frozen=True, slots=True)
class QuizCatalog:
    quizzes: Mapping[str, Quiz]

    def get(self, quiz_id: str) -> Quiz | None:
        return self.quizzes.get(quiz_id)

    def chapter_quiz(self, slug: str) -> Quiz | None:
        quiz = self.quizzes.get(slug)
        return quiz if quiz is not None and not quiz.is_exam else None

    @property
    def exam(self) -> Quiz | None:
        return self.quizzes.get(EXAM_ID)

    def __iter__(self) -> Iterator[Quiz]:
        return iter(self.quizzes.values())


# --- text with parameters ------------------------------------------------------------------------------------


# The generic servers' names in Korean, as the web catalog has them for the lab ("8-GPU PCIe 5.0 server
# (illustrative)"): prompts are rendered here, where no catalog is at hand, and a product name needs none.
_SYSTEM_NAMES_KO = {"pcie-gen4-8gpu": "GPU 8개 PCIe 4.0 서버(예시)", "pcie-gen5-8gpu": "GPU 8개 PCIe 5.0 서버(예시)"}


@lru_cache(maxsize=4096)  # pure, and Babel's formatting is slow next to the rest of a feedback fragment
def format_parameter(name: str, value: ParameterValue, language: str) -> str:
    """How a drawn parameter reads in a prompt: sizes exactly in binary units, presets by name, numbers localised."""
    if name.endswith("_bytes") and isinstance(value, int):
        return exact_binary_size(value, language)
    if name == "system" and isinstance(value, str) and value in simulator.SYSTEMS:
        if language == "ko" and value in _SYSTEM_NAMES_KO:
            return _SYSTEM_NAMES_KO[value]
        return simulator.SYSTEMS[value].name.removeprefix("NVIDIA ")
    if name == "link" and isinstance(value, str) and value in simulator.LINKS:
        return simulator.LINKS[value].name
    if name == "op" and isinstance(value, str):
        return value.replace("_", "-")
    if isinstance(value, int):
        return exact(value, language)
    return str(value)


def render_text(template: str, drawn: Mapping[str, ParameterValue], language: str, **extra: str) -> str:
    values = {name: format_parameter(name, value, language) for name, value in drawn.items()} | extra
    return template.format_map(values)


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# --- loading -------------------------------------------------------------------------------------------------


class _Problems:
    def __init__(self, path: Path, node: yaml.Node) -> None:
        self.path = path
        self.node = node
        self.items: list[ContentProblem] = []

    def add(self, location: tuple[object, ...], message: str) -> None:
        self.items.append(ContentProblem(self.path, line_of(self.node, location) + 1, message))


def load_quizzes(content_dir: Path, course: Course) -> QuizCatalog:
    """Every chapter quiz (guides/<slug>/quiz.yaml, optional per chapter) and the exam (exam.yaml, optional)."""
    quizzes: dict[str, Quiz] = {}
    problems: list[ContentProblem] = []
    for chapter in course.published:
        path = content_dir / "guides" / chapter.slug / "quiz.yaml"
        if path.is_file():
            quiz = _load_quiz(path, chapter.slug, course, problems)
            if quiz is not None:
                quizzes[quiz.id] = quiz
    exam_path = content_dir / "exam.yaml"
    if exam_path.is_file():
        quiz = _load_quiz(exam_path, None, course, problems, practice=tuple(quizzes.values()))
        if quiz is not None:
            quizzes[quiz.id] = quiz
    if problems:
        raise ContentError(problems, content_dir)
    return QuizCatalog(MappingProxyType(quizzes))


def _load_quiz(
    path: Path, chapter: str | None, course: Course, problems: list[ContentProblem], practice: tuple[Quiz, ...] = ()
) -> Quiz | None:
    try:
        model, node = parse_yaml(path, path.read_text("utf-8"), QuizModel)
    except ContentProblemsError as raised:
        problems.extend(raised.problems)
        return None
    found = _Problems(path, node)
    questions: list[Question] = []
    seen: set[str] = set()
    for index, entry in enumerate(model.questions):
        where = ("questions", index)
        if entry.id in seen:
            found.add((*where, "id"), f"question id '{entry.id}' is used twice")
        seen.add(entry.id)
        question = _question(entry, chapter, course, found, where)
        if question is not None:
            questions.append(question)
    numeric = sum(question.type == "numeric" for question in questions)
    draw = model.draw or len(model.questions)
    min_worked = worked_needed(draw, model.pass_percent) if chapter is None else 0
    if chapter is None:
        if model.draw is None:
            found.add(("title",), "the exam needs `draw`: how many questions each attempt draws")
        elif len(model.questions) < 2 * draw:
            found.add(
                ("draw",),
                f"the exam draws {draw} questions, so the bank needs at least {2 * draw} "
                f"(it has {len(model.questions)})",
            )
        _check_exam(model, questions, min_worked, found)
    else:
        if draw > len(model.questions):
            found.add(("draw",), f"draw is {draw} but the bank has only {len(model.questions)} questions")
        if len(model.questions) < MIN_CHAPTER_QUESTIONS:
            found.add(
                ("questions",),
                f"a chapter quiz needs at least {MIN_CHAPTER_QUESTIONS} questions (it has {len(model.questions)})",
            )
        if numeric < MIN_CHAPTER_NUMERIC:
            found.add(
                ("questions",),
                f"a chapter quiz needs at least {MIN_CHAPTER_NUMERIC} numeric questions (it has {numeric})",
            )
    for cue in length_cues(questions):
        found.add(("questions",), cue.message())
    count_cue = correct_count_cue(questions)
    if count_cue is not None:
        found.add(("questions",), count_cue)
    if chapter is None:
        positions = {question.id: index for index, question in enumerate(model.questions)}
        for index, message in repeated_questions(questions, practice):
            found.add(("questions", positions[questions[index].id], "prompt"), message)
    for option_name in ("attempts_per_day", "minutes_between_attempts", "time_limit_minutes"):
        if chapter is not None and getattr(model, option_name) is not None:
            found.add((option_name,), f"{option_name} applies to the exam only; chapter quizzes are practice")
    problems.extend(found.items)
    if found.items:
        return None
    return Quiz(
        id=chapter or EXAM_ID,
        chapter=chapter,
        title=Text(model.title.en, model.title.ko),
        pass_percent=model.pass_percent,
        questions=tuple(questions),
        draw=draw,
        min_worked=min_worked,
        time_limit_s=model.time_limit_minutes * 60 if model.time_limit_minutes else None,
        attempts_per_day=model.attempts_per_day,
        seconds_between_attempts=(model.minutes_between_attempts or 0) * 60,
    )


def worked_needed(draw: int, pass_percent: int) -> int:
    """The fewest worked numeric questions an exam attempt must hold so that every other question answered right
    (choice questions and look-ups, which a harvested record or a copied prompt can answer) plus ONE worked
    question right by luck (a script's guess that happens to land within the tolerance) stays below the pass
    mark: the smallest k with (draw − k + 1) · 100 < pass_percent · draw. Without that margin of one, 100
    record attackers, each with one worked guess in a few hundred landing, passed now and then."""
    return (draw * (100 - pass_percent)) // 100 + 2


def _check_exam(model: QuizModel, questions: list[Question], min_worked: int, found: _Problems) -> None:
    """What keeps the exam a test of understanding (README, "Exam integrity")."""
    positions = {entry.id: index for index, entry in enumerate(model.questions)}
    numeric = [question for question in questions if question.type == "numeric"]
    worked = [question for question in numeric if question.worked]
    if len(worked) < 2 * min_worked:
        found.add(
            ("questions",),
            f"each attempt draws at least {min_worked} worked numeric questions, so the bank needs at least "
            f"{2 * min_worked} (it has {len(worked)})",
        )
    if 3 * len(worked) < 2 * len(numeric):
        found.add(
            ("questions",),
            f"at least two thirds of the numeric questions must be worked, not look-ups "
            f"({len(worked)} of {len(numeric)} are)",
        )
    for question in numeric:
        where = ("questions", positions[question.id])
        if question.prompt_variants < MIN_EXAM_PROMPTS:
            found.add(
                (*where, "parameters"),
                f"an exam question needs at least {MIN_EXAM_PROMPTS} different prompts; its parameters "
                f"draw {question.prompt_variants}",
            )
        calibrated = "calibrated" in probe_values(question.parameters.get("mode", ("ideal",)))
        if question.model in CALIBRATED_BY_DEFAULT and "mode" not in question.parameters:
            calibrated = True
        if calibrated and question.tolerance_percent < MIN_CALIBRATED_TOLERANCE:
            found.add(
                (*where, "tolerance_percent"),
                f"a question on the calibrated model needs a tolerance of at least {MIN_CALIBRATED_TOLERANCE} % "
                "(the model's own error); ask a regime, an ordering or a bottleneck instead",
            )


def _text(model: TextModel) -> Text:
    return Text(model.en.strip(), model.ko.strip())


def _question(
    entry: QuestionModel, quiz_chapter: str | None, course: Course, found: _Problems, where: tuple[object, ...]
) -> Question | None:
    before = len(found.items)
    chapter_slug = entry.chapter or quiz_chapter
    if quiz_chapter is not None and entry.chapter not in (None, quiz_chapter):
        found.add(
            (*where, "chapter"), f"a question in the {quiz_chapter} quiz tests that chapter, not '{entry.chapter}'"
        )
    if chapter_slug is None:
        found.add((*where, "id"), "an exam question needs `chapter`: the chapter whose section it tests")
        return None
    chapter = course.chapter(chapter_slug)
    if chapter is None:
        found.add((*where, "chapter"), f"no published chapter '{chapter_slug}'")
        return None
    for language, page in chapter.pages.items():
        if entry.section not in page.anchors:
            known = ", ".join(sorted(page.anchors))
            found.add(
                (*where, "section"),
                f"section '{entry.section}' is not in guides/{chapter_slug}/{language}.md (sections: {known})",
            )
            break
    parameters: dict[str, ParameterValues] = {
        name: ParameterRange(value.min, value.max, value.step)
        if isinstance(value, RangeModel)
        else tuple(value if isinstance(value, list) else [value])
        for name, value in entry.parameters.items()
    }
    for name, values in parameters.items():
        if isinstance(values, ParameterRange):
            continue
        if not values:
            found.add((*where, "parameters", name), f"parameter '{name}' has no values to draw from")
        if len(set(values)) != len(values):
            found.add((*where, "parameters", name), f"parameter '{name}' lists a value twice")
    texts = {"prompt": entry.prompt, "explanation": entry.explanation}
    allowed = set(parameters) | {"answer"}
    for key, text in texts.items():
        for language in LANGUAGES:
            names = placeholders(getattr(text, language))
            unknown = names - allowed if key == "explanation" else names - set(parameters)
            if unknown:
                found.add(
                    (*where, key, language),
                    f"{key}.{language} uses {{{', '.join(sorted(unknown))}}}, "
                    f"which is not a parameter (known: {', '.join(sorted(allowed))})",
                )
        if placeholders(text.en) != placeholders(text.ko):
            found.add((*where, key, "ko"), f"{key}.en and {key}.ko use different placeholders")
    hint_value = None
    if entry.type == "numeric":
        largest = _check_numeric(entry, parameters, found, where)
        if largest is not None:
            hint_value = 10.0 ** (math.ceil(math.log10(largest)) + 2)
    if len(found.items) > before:
        return None
    return Question(
        id=entry.id,
        type=entry.type,
        chapter=chapter_slug,
        section=entry.section,
        prompt=_text(entry.prompt),
        options=tuple(
            Option(_text(o.text), o.correct, o.misconception, _text(o.feedback) if o.feedback else None)
            for o in entry.options
        ),
        explanation=_text(entry.explanation),
        unit=entry.unit,
        tolerance_percent=entry.tolerance_percent,
        parameters=MappingProxyType(parameters),
        model=entry.compute.model if entry.compute else None,
        lookup=entry.lookup,
        hint_value=hint_value,
    )


def _check_numeric(
    entry: QuestionModel,
    parameters: Mapping[str, ParameterValues],
    found: _Problems,
    where: tuple[object, ...],
) -> float | None:
    """Checks the question against the simulator; returns its largest answer in its unit, if all is well."""
    assert entry.compute is not None
    assert entry.unit is not None
    model = MODELS[entry.compute.model]
    try:
        unit = unit_named(entry.unit)
    except QuantityError:
        found.add((*where, "unit"), f"unknown unit '{entry.unit}' (e.g. s, ms, us, GB/s, Gb/s)")
        return None
    if unit.dimension != model.dimension:
        kind = "a time" if model.dimension == Dimension.TIME else "a data rate"
        found.add((*where, "unit"), f"'{entry.compute.model}' computes {kind}; '{entry.unit}' does not measure it")
    missing = model.required - set(parameters)
    unknown = set(parameters) - model.required - model.optional
    if missing:
        found.add((*where, "parameters"), f"'{entry.compute.model}' needs parameters: {', '.join(sorted(missing))}")
    if unknown:
        found.add(
            (*where, "parameters"),
            f"'{entry.compute.model}' takes no parameter "
            f"{', '.join(sorted(unknown))} (it takes "
            f"{', '.join(sorted(model.required | model.optional))})",
        )
    if missing or unknown:
        return None
    count = math.prod(len(probe_values(values)) for values in parameters.values())
    if count > MAX_COMBINATIONS:
        found.add((*where, "parameters"), f"{count} combinations of parameters to check; at most {MAX_COMBINATIONS}")
        return None
    names = sorted(parameters)
    largest = 0.0
    for values in itertools.product(*(probe_values(parameters[name]) for name in names)):
        drawn = dict(zip(names, values, strict=True))
        try:
            computed = compute(entry.compute.model, drawn)
        except simulator.SimulationError as error:
            found.add(
                (*where, "parameters", error.parameter if error.parameter in parameters else "parameters"),
                f"the simulator refuses {drawn}: {error.message}",
            )
            return None
        if not (computed.value > 0 and math.isfinite(computed.value)):
            found.add((*where, "parameters"), f"the answer for {drawn} is {computed.value}, not a positive number")
            return None
        largest = max(largest, computed.value / unit.to_base)
    return largest
