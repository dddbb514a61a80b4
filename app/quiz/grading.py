"""Grading: pure functions from a question, the drawn parameters and a submission to a grade.

A wrong numeric answer is diagnosed by the ratio between the learner's value and the right one. The ratio of a
unit slip is a known constant (8 for bits versus bytes, 2 for one direction versus both, 1.0737 for GB versus
GiB, 1000 for a prefix, the busbw/algbw factor of a collective, the links per GPU), so it can be told apart
from an arithmetic mistake, whose ratio is anything else.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from app.formatting import GiB
from app.quiz.bank import Question
from app.quiz.units import Quantity, unit_named
from app.simulator.models import Computed, ParameterValue

GIB_PER_GB = GiB / 1e9
DIAGNOSIS_TOLERANCE = 0.01  # how close a ratio must be to a slip's constant to be called that slip


class SubmissionError(ValueError):
    """The submission cannot be graded (not locked, nothing stored); `code` names why."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class Grade:
    correct: bool
    diagnosis: str | None = None  # numeric only: "bits-bytes", "direction+gb-gib", "arithmetic", ...
    ratio: float | None = None  # numeric only: the learner's value / the right one


def grade_choice(question: Question, chosen: Collection[int]) -> Grade:
    """`chosen`: indexes into question.options (already mapped from tokens)."""
    picked = frozenset(chosen)
    if not picked:
        raise SubmissionError("no_choice")
    if question.type == "single" and len(picked) != 1:
        raise SubmissionError("one_choice")
    if any(not 0 <= index < len(question.options) for index in picked):
        raise SubmissionError("unknown_option")
    return Grade(correct=picked == question.correct_indexes)


def grade_numeric(question: Question, computed: Computed, quantity: Quantity) -> Grade:
    assert question.unit is not None
    expected_unit = unit_named(question.unit)
    if quantity.unit.dimension != expected_unit.dimension:
        raise SubmissionError("wrong_dimension")
    expected = computed.value
    given = quantity.base_value
    if abs(given - expected) <= question.tolerance_percent / 100 * abs(expected):
        return Grade(correct=True, ratio=given / expected)
    if given <= 0:
        return Grade(correct=False, diagnosis="sign" if given < 0 else "arithmetic", ratio=None)
    ratio = given / expected
    return Grade(correct=False, diagnosis=diagnose(ratio, computed), ratio=ratio)


def slip_factors(computed: Computed) -> list[tuple[str, float]]:
    """The constant by which each known slip multiplies (or divides) the right answer, most telling first."""
    basic = [("direction", 2.0), ("bits-bytes", 8.0), ("gb-gib", GIB_PER_GB)]
    factors = list(basic)
    if computed.ranks and computed.ranks > 1 and computed.op in ("all_reduce", "all_gather", "reduce_scatter"):
        busbw = (
            2.0 * (computed.ranks - 1) / computed.ranks
            if computed.op == "all_reduce"
            else ((computed.ranks - 1) / computed.ranks)
        )
        factors.append(("busbw-algbw", busbw))
    if computed.links_per_gpu and computed.links_per_gpu > 1:
        factors.append(("per-link", float(computed.links_per_gpu)))
    factors += [("prefix", 1e3), ("prefix", 1e6), ("prefix", 1e9), ("prefix", 1024.0)]
    for index, (first, first_factor) in enumerate(basic):
        for second, second_factor in basic[index + 1 :]:
            factors.append((f"{first}+{second}", first_factor * second_factor))
            factors.append((f"{first}+{second}", first_factor / second_factor))
    return factors


def diagnose(ratio: float, computed: Computed) -> str:
    for code, factor in slip_factors(computed):
        for candidate in (factor, 1.0 / factor):
            if abs(ratio / candidate - 1.0) <= DIAGNOSIS_TOLERANCE:
                return code
    return "arithmetic"


def expected_in_unit(question: Question, drawn: Mapping[str, ParameterValue]) -> float:
    """The right answer in the question's unit (what the feedback shows)."""
    assert question.unit is not None
    return question.compute(drawn).value / unit_named(question.unit).to_base
