"""Drawing an attempt: which questions, in which order, with which parameters and option order.

Pure and deterministic in the seed, which is stored with the attempt, so a drawn attempt can always be
explained (and reproduced in a test). Option tokens are not drawn here: they must be unguessable, so the
service takes them from `secrets`.

An exam attempt covers the course, not the chapter with the most questions: the draw spreads over as many
chapters as it can, at most ceil(draw / chapters) questions from any one, and still includes `min_worked`
worked numeric questions (not look-ups), so that no record of choice answers and copied look-ups can pass.
Each pick takes a chapter uniformly among those drawn from least so far (so that a chapter with many questions
is not drawn more often), then a question uniformly within it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.quiz.bank import Question, Quiz, draw_parameter
from app.simulator.models import ParameterValue


@dataclass(frozen=True, slots=True)
class DrawnQuestion:
    question_id: str
    parameters: dict[str, ParameterValue]
    option_order: tuple[int, ...]  # indexes into the bank question's options, in display order


def chapter_cap(quiz: Quiz) -> int:
    """The most questions one attempt takes from a single chapter."""
    chapters = len({question.chapter for question in quiz.questions})
    return math.ceil(quiz.draw / chapters)


def _pick(
    rng: random.Random,
    available: Sequence[Question],
    taken: dict[str, int],
    cap: int,
    eligible: Callable[[Question], bool],
) -> Question | None:
    candidates = [question for question in available if eligible(question)]
    if not candidates:
        return None
    # Respect the cap when the bank allows it; a bank too thin to fill the draw under it still fills it.
    under_cap = [question for question in candidates if taken.get(question.chapter, 0) < cap] or candidates
    fewest = min(taken.get(question.chapter, 0) for question in under_cap)
    chapters = sorted({question.chapter for question in under_cap if taken.get(question.chapter, 0) == fewest})
    chapter = rng.choice(chapters)
    return rng.choice([question for question in under_cap if question.chapter == chapter])


def _balanced(quiz: Quiz, rng: random.Random) -> list[Question]:
    cap = chapter_cap(quiz)
    available = list(quiz.questions)
    taken: dict[str, int] = {}
    picked: list[Question] = []
    while len(picked) < quiz.draw:
        worked_needed = sum(question.worked for question in picked) < quiz.min_worked
        question = _pick(rng, available, taken, cap, lambda q: q.worked) if worked_needed else None
        if question is None:
            question = _pick(rng, available, taken, cap, lambda q: True)
        assert question is not None  # draw < len(questions), checked when the bank loads
        picked.append(question)
        available.remove(question)
        taken[question.chapter] = taken.get(question.chapter, 0) + 1
    return picked


def draw_attempt(quiz: Quiz, seed: int) -> tuple[DrawnQuestion, ...]:
    """`quiz.draw` questions, at least `quiz.min_worked` of them worked numeric ones, spread over the chapters,
    shuffled."""
    rng = random.Random(seed)  # noqa: S311  (reproducible drawing, not a secret: tokens come from secrets)
    picked = list(quiz.questions) if quiz.draw >= len(quiz.questions) else _balanced(quiz, rng)
    rng.shuffle(picked)
    drawn = []
    for question in picked:
        parameters = {name: draw_parameter(question.parameters[name], rng) for name in sorted(question.parameters)}
        order = list(range(len(question.options)))
        rng.shuffle(order)
        drawn.append(DrawnQuestion(question.id, parameters, tuple(order)))
    return tuple(drawn)
