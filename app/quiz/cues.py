"""Answer cues a test-wise learner can exploit without knowing the subject: option length and repeated questions.

Writers pad the right answer with the qualification that makes it right, so it tends to be the longest option;
over-correcting makes it the shortest. Either cue is flagged when a bank shows it far more often than chance:
with k options a question's correct option is (strictly) the longest with chance 1/k if lengths carried no
information, so the count over a bank follows a Poisson binomial distribution, and a bank is flagged when the
probability of at least the observed count is below CUE_SIGNIFICANCE. Ties count as not longest (or shortest):
equal lengths give nothing away.

A bank of "choose all" questions gives a cue of its own when every one has some but not all options right: a
learner who always ticks two or three never scores a clean miss, so at least one such question must have exactly
one right option, or all of them.

An exam question must not be answerable from memory of the practice quizzes (or of another exam question):
the same prompt, the same options, or a numeric question whose every possible draw a practice question can
also draw.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.i18n import LANGUAGES

if TYPE_CHECKING:  # bank.py runs these checks while it loads, so this module cannot import it at run time
    from app.quiz.bank import ParameterValues, Question, Quiz

CUE_SIGNIFICANCE = 0.01
_LISTED = 6  # question ids named in a message


def at_least_probability(chances: Sequence[float], observed: int) -> float:
    """P(X >= observed) for X the number of successes of independent trials with these chances (exact)."""
    distribution = [1.0]  # distribution[j] = P(j successes so far)
    for chance in chances:
        following = [0.0] * (len(distribution) + 1)
        for successes, probability in enumerate(distribution):
            following[successes] += probability * (1 - chance)
            following[successes + 1] += probability * chance
        distribution = following
    return min(1.0, sum(distribution[observed:]))


@dataclass(frozen=True, slots=True)
class LengthCue:
    language: str
    extreme: str  # "longest" or "shortest"
    observed: int
    questions: int
    probability: float
    question_ids: tuple[str, ...]

    def message(self) -> str:
        named = ", ".join(self.question_ids[:_LISTED]) + (", …" if len(self.question_ids) > _LISTED else "")
        return (
            f"the correct option is the {self.extreme} in {self.observed} of {self.questions} single-choice "
            f"questions ({self.language}: {named}); by chance (one in the number of options per question) "
            f"{self.observed} or more would happen with probability {self.probability:.2%}, below "
            f"{CUE_SIGNIFICANCE:.0%}: balance the option lengths"
        )


def _is_extreme(lengths: Sequence[int], index: int, better: Callable[[int, int], bool]) -> bool:
    return all(better(lengths[index], length) for other, length in enumerate(lengths) if other != index)


def length_cues(questions: Iterable[Question]) -> list[LengthCue]:
    """The languages and directions in which a bank's single-choice questions give their answer away by length."""
    single = [question for question in questions if question.type == "single"]
    chances = [1 / len(question.options) for question in single]
    cues = []
    for language in LANGUAGES:
        for extreme, better in (("longest", int.__gt__), ("shortest", int.__lt__)):
            hits = tuple(
                question.id
                for question in single
                if _is_extreme(
                    [len(option.text.get(language)) for option in question.options],
                    next(index for index, option in enumerate(question.options) if option.correct),
                    better,
                )
            )
            probability = at_least_probability(chances, len(hits))
            if hits and probability < CUE_SIGNIFICANCE:
                cues.append(LengthCue(language, extreme, len(hits), len(single), probability, hits))
    return cues


# --- how many options a "choose all" question has right ------------------------------------------------------

MIN_MULTIPLE_FOR_COUNT_CUE = 4  # below this a bank's counts cannot form a habit worth flagging


def correct_count_cue(questions: Iterable[Question]) -> str | None:
    """Why a bank's multiple-choice questions teach "tick some, never one, never all", or None."""
    counts = [
        (question.id, sum(option.correct for option in question.options), len(question.options))
        for question in questions
        if question.type == "multiple"
    ]
    if len(counts) < MIN_MULTIPLE_FOR_COUNT_CUE or any(right in (1, total) for _, right, total in counts):
        return None
    named = ", ".join(question_id for question_id, _, _ in counts[:_LISTED]) + (", …" if len(counts) > _LISTED else "")
    return (
        f"every one of the {len(counts)} multiple-choice questions ({named}) has more than one but not all options "
        "correct: let at least one have a single correct option, or all"
    )


# --- repeated questions ---------------------------------------------------------------------------------------

_NOT_WORD = re.compile(r"[\W_]+")


@functools.lru_cache(maxsize=4096)
def _normal(text: str) -> str:
    """Each exam question meets every practice question: the same few hundred texts, normalised once each."""
    return _NOT_WORD.sub(" ", text.casefold()).strip()


def _within(values: ParameterValues, others: ParameterValues) -> bool:
    """Whether every value `values` can draw is one `others` can draw (a tuple lists values; a range does not)."""
    if not isinstance(values, tuple):
        low, high = values.probes()[0], values.probes()[-1]
        if not isinstance(others, tuple):
            return (
                values.step % others.step == 0
                and low % others.step == 0
                and others.minimum <= low <= high <= others.maximum
            )
        return values.variants <= len(others) and all(value in others for value in range(low, high + 1, values.step))
    if not isinstance(others, tuple):
        return all(
            isinstance(value, int) and value % others.step == 0 and others.minimum <= value <= others.maximum
            for value in values
        )
    return set(values) <= set(others)


def repeats(question: Question, other: Question) -> str | None:
    """Why `question` asks what `other` already asks, or None."""
    for language in LANGUAGES:
        if _normal(question.prompt.get(language)) == _normal(other.prompt.get(language)):
            return f"the same prompt ({language})"
    if question.type != "numeric" and other.type != "numeric":
        mine = {_normal(option.text.en) for option in question.options}
        if mine == {_normal(option.text.en) for option in other.options}:
            return "the same options"
    if (
        question.type == "numeric"
        and other.type == "numeric"
        and question.model == other.model
        and set(question.parameters) == set(other.parameters)
        and all(_within(question.parameters[name], other.parameters[name]) for name in question.parameters)
    ):
        return f"the same {question.model} calculation, with no value the other cannot draw"
    return None


def repeated_questions(exam: Sequence[Question], practice: Sequence[Quiz]) -> list[tuple[int, str]]:
    """(index in `exam`, message) for each exam question that repeats a practice question or an earlier one."""
    practised = [(f"practice question '{quiz.id}/{other.id}'", other) for quiz in practice for other in quiz.questions]
    found = []
    for index, question in enumerate(exam):
        earlier = [(f"exam question '{other.id}'", other) for other in exam[:index]]
        for name, other in practised + earlier:
            reason = repeats(question, other)
            if reason is not None:
                found.append((index, f"exam question '{question.id}' repeats {name}: {reason}"))
                break
    return found
