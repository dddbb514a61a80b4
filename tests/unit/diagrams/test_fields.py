"""Reading a diagram's form (app/diagrams/fields.py): every bad field raises FieldError naming that field."""

from __future__ import annotations

import pytest

from app.diagrams import DIAGRAMS, fields
from app.numbers import number_text


def test_a_choice_must_be_one_of_the_choices() -> None:
    assert fields.choice({"op": "all_reduce"}, "op", ("all_reduce", "broadcast")) == "all_reduce"
    with pytest.raises(fields.FieldError) as raised:
        fields.choice({"op": "all_gossip"}, "op", ("all_reduce", "broadcast"))
    problem = raised.value.problem
    assert (problem.field, problem.error.code, problem.error.allowed) == (
        "op",
        "unknown_value",
        "all_reduce, broadcast",
    )


@pytest.mark.parametrize(("text", "code"), [("0", "out_of_range"), ("9", "out_of_range"), ("2.5", "invalid_type")])
def test_a_whole_number_must_be_whole_and_within_bounds(text: str, code: str) -> None:
    assert fields.whole({"gpus": " 4 "}, "gpus", 2, 8) == 4
    with pytest.raises(fields.FieldError) as raised:
        fields.whole({"gpus": text}, "gpus", 1, 8)
    assert (raised.value.problem.field, raised.value.problem.error.code) == ("gpus", code)
    assert raised.value.problem.error.allowed == "1..8"


@pytest.mark.parametrize("text", ["0", "-1", "1025", "1,025"])
def test_a_positive_number_must_be_above_zero_and_at_most_the_maximum(text: str) -> None:
    assert fields.positive({"size": "1,024"}, "size", 1024, "GiB") == 1024
    with pytest.raises(fields.FieldError) as raised:
        fields.positive({"size": text}, "size", 1024, "GiB")
    problem = raised.value.problem
    assert (problem.field, problem.kind, problem.values) == ("size", "above_zero", {"high": "1,024 GiB"})


@pytest.mark.parametrize("text", ["nan", "inf", "1e400", "lots", "", "1,2,3", "2,345,6", "2.4.5", "0,125"])
def test_what_is_not_a_number_says_so(text: str) -> None:
    with pytest.raises(fields.FieldError) as raised:
        fields.positive({"size": text}, "size", 1024, "GiB")
    assert (raised.value.problem.field, raised.value.problem.kind) == ("size", "number")


@pytest.mark.parametrize(
    ("text", "value"),
    [("2,4", 2.4), ("2,45", 2.45), (" 0,5 ", 0.5), ("1,024", 1024), ("12,345.5", 12345.5), ("2.4", 2.4), ("7", 7)],
)
def test_a_decimal_comma_is_read_as_a_decimal_and_groups_of_three_as_thousands(text: str, value: float) -> None:
    assert number_text(text) == value
    assert fields.positive({"size": text}, "size", 1e6, "GiB") == value
    assert float(fields.canonical_number(text)) == value


def test_a_size_is_between_one_byte_and_the_maximum_in_the_chosen_unit() -> None:
    units = {"GiB": 2**30, "MB": 10**6}
    assert fields.size_in_bytes({"size": "2,5", "unit": "GiB"}, units, 2**40) == (5 * 2**29, 2.5, "GiB")
    for size, unit in (("0", "GiB"), ("1025", "GiB"), ("0.0000001", "MB")):
        with pytest.raises(fields.FieldError) as raised:
            fields.size_in_bytes({"size": size, "unit": unit}, units, 2**40)
        assert raised.value.problem.kind == "bytes"
    with pytest.raises(fields.FieldError) as raised:
        fields.size_in_bytes({"size": "2000000", "unit": "MB"}, units, 2**40)
    assert raised.value.problem.values == {"high": "1 TiB (1,099,511.63 MB)"}


def test_every_diagram_builds_its_defaults_and_has_a_fragment_template() -> None:
    for diagram in DIAGRAMS.values():
        assert diagram.build(diagram.defaults) is not None
        assert diagram.template.startswith("diagrams/_")
        assert diagram.root_id == f"diagram-{diagram.id}"
