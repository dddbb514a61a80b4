from __future__ import annotations

import pytest

from app import simulator
from app.content.figures import CalculationError, calculate, simulator_figure, substitute_figures
from app.formatting import significant


def _substitute(text: str, language: str = "en") -> tuple[str, list[tuple[int, str]]]:
    problems: list[tuple[int, str]] = []
    result = substitute_figures(
        text, language, simulator_figure, lambda line, message: problems.append((line, message))
    )
    return result, problems


def test_a_calculation_is_the_simulators_result_in_the_unit_asked_for() -> None:
    expected = simulator.simulate_collective(
        simulator.CollectiveQuery("all_reduce", system="dgx-h100", algorithm="ring", mode="ideal"), 2**30
    )
    shown = calculate(
        "collective_time", "ms", "op=all_reduce, message_bytes=1GiB, system=dgx-h100, algorithm=ring, mode=ideal"
    )
    assert shown == pytest.approx(expected.time_s * 1e3)
    assert calculate("transfer_time", "us", "message_bytes=1MB,link=nvlink4") == pytest.approx(1e6 / 450e9 * 1e6)
    assert calculate("link_bandwidth", "Gb/s", "link=ib-ndr") == pytest.approx(400.0)


def test_training_fraction_is_a_percentage_of_the_step() -> None:
    step = simulator.training_step(7_000_000_000, "dgx-h100", 4, 0.5)
    assert calculate(
        "training_comm_fraction", "%", "parameters=7000000000,system=dgx-h100,nodes=4,compute_time_ms=500"
    ) == (pytest.approx(step.communication_fraction * 100))


def test_calculated_figures_are_formatted_to_three_significant_digits_per_language() -> None:
    assert significant(4.175662, "en") == "4.18"
    assert significant(12345.678, "en") == "12,346"
    assert significant(0.000123456, "ko") == "0.000123"
    text, problems = _substitute("It takes {{calc:transfer_time:ms|message_bytes=1GiB,link=nvlink4}} ms.")
    assert problems == []
    assert text == "It takes 2.39 ms."


@pytest.mark.parametrize(
    ("placeholder", "complaint"),
    [
        ("{{calc:warp_drive:ms|link=nvlink4}}", "unknown model"),
        ("{{calc:transfer_time:parsecs|message_bytes=1GiB,link=nvlink4}}", "unknown unit"),
        ("{{calc:transfer_time:GB/s|message_bytes=1GiB,link=nvlink4}}", "does not measure it"),
        ("{{calc:transfer_time:ms|message_bytes=1GiB}}", "missing: link"),
        ("{{calc:transfer_time:ms|message_bytes=1GiB,link=nvlink4,colour=red}}", "unknown: colour"),
        ("{{calc:transfer_time:ms|message_bytes=1GiB,link=warp}}", "the simulator refuses"),
        ("{{calc:transfer_time:ms|message_bytes}}", "is not name=value"),
    ],
)
def test_a_bad_calculation_is_reported_on_its_line(placeholder: str, complaint: str) -> None:
    text, problems = _substitute(f"first line\nsecond {placeholder} line")
    assert len(problems) == 1
    line, message = problems[0]
    assert line == 1
    assert complaint in message
    assert placeholder in text  # left as written, never half-rendered


def test_calculate_raises_for_bad_input() -> None:
    with pytest.raises(CalculationError):
        calculate("collective_time", "ms", "op=all_reduce")


def test_a_calibrated_figure_is_quoted_with_its_expected_error() -> None:
    placeholder = (
        "{{calc:collective_time:us|op=all_reduce,message_bytes=1MiB,system=dgx-h100,algorithm=ring,mode=calibrated}}"
    )
    result = simulator.simulate_collective(
        simulator.CollectiveQuery("all_reduce", system="dgx-h100", algorithm="ring"), 2**20
    )
    assert result.error_percent > 5
    text, problems = _substitute(f"It takes {placeholder} µs.")
    assert problems == []
    assert text == f"It takes ≈ {significant(result.time_s * 1e6)} µs (± {result.error_percent:.0f} %)."


def test_an_exact_figure_carries_no_error() -> None:
    text, problems = _substitute(
        "{{calc:collective_time:ms|op=all_reduce,message_bytes=1GiB,system=dgx-h100,algorithm=ring,mode=ideal}} ms"
    )
    assert problems == []
    assert "±" not in text
    assert "≈" not in text


def test_a_calibrated_figure_that_cannot_carry_its_error_is_a_content_error() -> None:
    placeholder = "{{calc:collective_busbw:GB/s|op=all_reduce,message_bytes=1MiB,system=dgx-h100,mode=calibrated}}"
    _, problems = _substitute(f"A busbw of {placeholder} against 20 GB/s.")
    assert len(problems) == 1
    assert "must be quoted with its error" in problems[0][1]
