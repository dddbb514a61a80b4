"""The training-step helper: gradient all-reduce against compute."""

import pytest

from app.simulator import CollectiveQuery, simulate_collective, training_step


def test_gradient_all_reduce_of_a_7b_model_on_four_dgx_h100() -> None:
    step = training_step(7_000_000_000, "dgx-h100", 4, compute_time_s=1.0)
    assert step.gradient_bytes == 14_000_000_000
    expected = simulate_collective(CollectiveQuery("all_reduce", system="dgx-h100", nodes=4), 14_000_000_000)
    assert step.result == expected
    assert step.allreduce_time_s == expected.time_s
    assert step.communication_fraction == pytest.approx(expected.time_s / (expected.time_s + 1.0))
    assert step.exposed is (expected.time_s > 1.0)


def test_short_compute_exposes_communication() -> None:
    step = training_step(70_000_000_000, "dgx-a100", 16, compute_time_s=0.01, bytes_per_gradient=4)
    assert step.exposed
    assert step.communication_fraction > 0.5


def test_mode_and_algorithm_are_passed_through() -> None:
    step = training_step(10**9, "dgx-h100", 2, compute_time_s=0.5, mode="ideal", algorithm="ring")
    assert (step.result.mode, step.result.algorithm) == ("ideal", "ring")
