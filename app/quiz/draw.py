"""Drawing an attempt: which questions, in which order, with which parameters and option order.

Pure and deterministic in the seed, which is stored with the attempt, so a drawn attempt can always be
explained (and reproduced in a test). Option tokens are not drawn here: they must be unguessable, so the
service takes them from `secrets`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from app.quiz.bank import Quiz, draw_parameter
from app.simulator.models import ParameterValue


@dataclass(frozen=True, slots=True)
class DrawnQuestion:
    question_id: str
    parameters: dict[str, ParameterValue]
    option_order: tuple[int, ...]  # indexes into the bank question's options, in display order


def draw_attempt(quiz: Quiz, seed: int) -> tuple[DrawnQuestion, ...]:
    """`quiz.draw` questions, at least `quiz.min_numeric` of them numeric, shuffled."""
    rng = random.Random(seed)  # noqa: S311  (reproducible drawing, not a secret: tokens come from secrets)
    questions = list(quiz.questions)
    if quiz.draw >= len(questions):
        picked = questions
    else:
        numeric = [question for question in questions if question.type == "numeric"]
        required = rng.sample(numeric, quiz.min_numeric)
        rest = [question for question in questions if question not in required]
        picked = required + rng.sample(rest, quiz.draw - quiz.min_numeric)
    rng.shuffle(picked)
    drawn = []
    for question in picked:
        parameters = {name: draw_parameter(question.parameters[name], rng) for name in sorted(question.parameters)}
        order = list(range(len(question.options)))
        rng.shuffle(order)
        drawn.append(DrawnQuestion(question.id, parameters, tuple(order)))
    return tuple(drawn)
