from __future__ import annotations

import pytest

from app.quiz.bank import Question
from app.quiz.grading import SubmissionError, diagnose, grade_choice, grade_numeric
from app.quiz.units import parse_quantity
from app.simulator.models import Computed
from tests.unit.quiz.helpers import real_catalog


def question(question_id: str) -> Question:
    for quiz in real_catalog():
        found = quiz.question(question_id)
        if found is not None:
            return found
    raise LookupError(question_id)


TRANSFER: dict[str, str | int] = {"message_bytes": 2**30, "link": "nvlink4"}  # 1 GiB over 450 GB/s: 2.386 ms


@pytest.mark.parametrize(
    ("typed", "correct", "diagnosis"),
    [
        ("2.386 ms", True, None),
        ("0.002386 s", True, None),
        ("2386 us", True, None),
        ("2.40 ms", True, None),  # within 1 %
        ("1.193 ms", False, "direction"),  # divided by the two-way 900 GB/s
        ("2.222 ms", False, "gb-gib"),  # 1 GiB taken as 10^9 bytes
        ("19.09 ms", False, "bits-bytes"),  # 450 taken as Gb/s
        ("2386 ms", False, "prefix"),
        ("42.95 ms", False, "per-link"),  # one 25 GB/s link
        ("1.111 ms", False, "direction+gb-gib"),
        ("3.1 ms", False, "arithmetic"),
        ("-2.386 ms", False, "sign"),
    ],
)
def test_numeric_slips_are_told_apart_from_arithmetic(typed: str, correct: bool, diagnosis: str | None) -> None:
    transfer = question("point-to-point-transfer")
    grade = grade_numeric(transfer, transfer.compute(TRANSFER), parse_quantity(typed))
    assert (grade.correct, grade.diagnosis) == (correct, diagnosis)


def test_busbw_for_algbw_is_its_own_slip() -> None:
    ring = question("ring-allreduce-time")
    drawn: dict[str, str | int] = {
        "op": "all_reduce",
        "algorithm": "ring",
        "mode": "ideal",
        "gpus_per_node": 8,
        "message_bytes": 2**30,
        "system": "dgx-h100",
    }
    computed = ring.compute(drawn)
    assert computed.value == pytest.approx(4.1757e-3, rel=1e-3)
    size_over_busbw_ms = 2**30 / 450e9 * 1e3
    grade = grade_numeric(ring, computed, parse_quantity(f"{size_over_busbw_ms} ms"))
    assert grade.diagnosis == "busbw-algbw"


def test_a_unit_of_the_wrong_kind_is_not_graded() -> None:
    transfer = question("point-to-point-transfer")
    with pytest.raises(SubmissionError, match="wrong_dimension"):
        grade_numeric(transfer, transfer.compute(TRANSFER), parse_quantity("450 GB/s"))


def test_diagnosis_needs_a_ratio_close_to_the_slip() -> None:
    computed = Computed(1.0)
    assert diagnose(8.0, computed) == "bits-bytes"
    assert diagnose(1 / 8.0, computed) == "bits-bytes"
    assert diagnose(8.3, computed) == "arithmetic"
    assert diagnose(0.5, computed) == "direction"
    assert diagnose(4.0, computed) == "direction+bits-bytes"


def test_single_choice_needs_exactly_one_option_and_grades_it() -> None:
    single = question("h100-one-direction")
    right = next(iter(single.correct_indexes))
    wrong = next(i for i in range(len(single.options)) if i != right)
    assert grade_choice(single, [right]).correct
    assert not grade_choice(single, [wrong]).correct
    for bad, code in (([], "no_choice"), ([right, wrong], "one_choice"), ([99], "unknown_option")):
        with pytest.raises(SubmissionError, match=code):
            grade_choice(single, bad)


def test_multiple_choice_is_all_or_nothing() -> None:
    multiple = question("verify-nvlink-in-use")
    right = sorted(multiple.correct_indexes)
    assert grade_choice(multiple, right).correct
    assert not grade_choice(multiple, right[:-1]).correct
    extra = next(i for i in range(len(multiple.options)) if i not in right)
    assert not grade_choice(multiple, [*right, extra]).correct


@pytest.mark.parametrize(
    ("with_comma", "with_point"),
    [
        ("2,39 ms", "2.39 ms"),
        ("2,4 ms", "2.4 ms"),
        ("1,19 ms", "1.19 ms"),
        ("2,386 us", "2386 us"),
        ("3,1 ms", "3.1 ms"),
    ],
)
def test_a_decimal_comma_is_graded_as_a_decimal_point(with_comma: str, with_point: str) -> None:
    transfer = question("point-to-point-transfer")
    computed = transfer.compute(TRANSFER)
    assert grade_numeric(transfer, computed, parse_quantity(with_comma)) == grade_numeric(
        transfer, computed, parse_quantity(with_point)
    )
