"""Reading a diagram's form (app/web/diagrams/fields.py): every bad field raises FieldError naming that field."""

from __future__ import annotations

import pytest

from app.web.diagrams import DIAGRAMS, fields


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


@pytest.mark.parametrize("text", ["0", "-1", "nan", "inf", "1e400", "lots", "1025"])
def test_a_positive_number_must_be_above_zero_and_at_most_the_maximum(text: str) -> None:
    assert fields.positive({"size": "1,024"}, "size", 1024, "GiB") == 1024
    with pytest.raises(fields.FieldError) as raised:
        fields.positive({"size": text}, "size", 1024, "GiB")
    assert raised.value.problem.field == "size"
    assert "1,024 GiB" in raised.value.problem.error.message


def test_every_diagram_builds_its_defaults_and_has_a_fragment_template() -> None:
    for diagram in DIAGRAMS.values():
        assert diagram.build(diagram.defaults) is not None
        assert diagram.template.startswith("diagrams/_")
        assert diagram.root_id == f"diagram-{diagram.id}"
