"""scaling: the gradient all-reduce against the GPU count, next to the compute time of a training step."""

from __future__ import annotations

import pytest

from app.diagrams import fields, scaling
from app.diagrams.units import format_seconds
from app.simulator import SYSTEMS, training_step


def build(**changes: str) -> scaling.View:
    return scaling.build({**scaling.DEFAULTS, **changes})


def test_every_point_is_the_simulators_training_step() -> None:
    view = build(params_b="7", compute_ms="60")
    assert (view.parameters, view.gradient_bytes, view.compute_s) == (7 * 10**9, 14 * 10**9, 0.06)
    for series in view.series:
        for point in series.points:
            expected = training_step(
                view.parameters,
                series.system_id,
                point.nodes,
                view.compute_s,
                scaling.BYTES_PER_GRADIENT,
                mode=view.mode,
                gpus_per_node=point.gpus_per_node,
            )
            assert point.step == expected
            assert point.gpus == point.nodes * point.gpus_per_node
            assert point.time_label == format_seconds(expected.allreduce_time_s)
        exposed = [point for point in series.points if point.step.allreduce_time_s > view.compute_s]
        assert series.first_exposed == (exposed[0] if exposed else None)


def test_the_gpu_count_grows_inside_a_node_then_across_nodes() -> None:
    for system_id, system in SYSTEMS.items():
        counts = scaling.gpu_counts(system_id)
        inside = [(nodes, per_node) for nodes, per_node in counts if nodes == 1]
        across = [(nodes, per_node) for nodes, per_node in counts if nodes > 1]
        assert inside[-1] == (1, system.gpus_per_node)
        assert all(per_node == system.gpus_per_node for _, per_node in across)
        assert across[-1][0] == system.max_nodes
        gpus = [nodes * per_node for nodes, per_node in counts]
        assert gpus == sorted(set(gpus))


def test_a_faster_compute_step_exposes_the_all_reduce_sooner() -> None:
    slow = build(compute_ms="1000", system2="none", system3="none").series[0]
    fast = build(compute_ms="1", system2="none", system3="none").series[0]
    assert fast.first_exposed is not None
    assert slow.first_exposed is None or slow.first_exposed.gpus >= fast.first_exposed.gpus


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"params_b": "0"}, "params_b"),
        ({"params_b": "1e6"}, "params_b"),
        ({"compute_ms": "-1"}, "compute_ms"),
        ({"compute_ms": "nan"}, "compute_ms"),
        ({"mode": "magic"}, "mode"),
        ({"system1": "none"}, "system1"),
        ({"system3": "cray-1"}, "system3"),
    ],
)
def test_a_bad_field_is_named(changes: dict[str, str], field: str) -> None:
    with pytest.raises(fields.FieldError) as raised:
        build(**changes)
    assert raised.value.problem.field == field
