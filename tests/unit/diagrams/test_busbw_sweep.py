"""busbw-sweep: algbw and busbw per size as nccl-tests would print them, for up to three series."""

from __future__ import annotations

import pytest

from app.diagrams import busbw_sweep, fields
from app.diagrams.units import significant
from app.simulator import SYSTEMS, CollectiveQuery, busbw_factor, sweep


def build(**changes: str) -> busbw_sweep.View:
    return busbw_sweep.build({**busbw_sweep.DEFAULTS, **changes})


def test_every_point_is_the_simulators_result() -> None:
    view = build()
    assert len(view.series) == 3
    for series in view.series:
        expected = sweep(
            CollectiveQuery(
                view.op, system=series.system_id, nodes=series.nodes, algorithm=series.algorithm, mode=view.mode
            ),
            view.min_bytes,
            view.max_bytes,
        )
        assert [point.result for point in series.points] == list(expected)
        for point in series.points:
            assert point.busbw_label == significant(point.result.busbw_GBps)
            assert point.result.busbw_GBps == pytest.approx(
                point.result.algbw_GBps * busbw_factor(view.op, series.ranks)
            )
        assert series.peak_busbw_GBps == max(result.busbw_GBps for result in expected)
        assert series.ranks == series.nodes * SYSTEMS[series.system_id].gpus_per_node


def test_sizes_double_from_min_to_max_like_nccl_tests() -> None:
    view = build(min_bytes="8", max_bytes=str(2**33))
    assert view.sizes == tuple(2**exponent for exponent in range(3, 34))
    odd = build(min_bytes="3", max_bytes="100")
    assert odd.sizes == (3, 6, 12, 24, 48, 96)


def test_the_crossover_is_the_first_bandwidth_bound_size() -> None:
    for series in build().series:
        bottlenecks = [point.result.bottleneck for point in series.points]
        first = next(index for index, bottleneck in enumerate(bottlenecks) if bottleneck != "latency")
        assert series.crossover_bytes == series.points[first].size_bytes
        assert all(bottleneck == "latency" for bottleneck in bottlenecks[:first])
    tiny = build(min_bytes="8", max_bytes="64", system2="none", system3="none")
    assert tiny.series[0].all_latency_bound
    assert tiny.series[0].crossover_bytes is None


def test_a_series_set_to_none_is_left_out() -> None:
    view = build(system2="none", system3="none")
    assert [series.number for series in view.series] == [1]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"op": "all_gossip"}, "op"),
        ({"mode": "magic"}, "mode"),
        ({"metric": "goodput"}, "metric"),
        ({"min_bytes": "0"}, "min_bytes"),
        ({"min_bytes": "1024", "max_bytes": "8"}, "min_bytes"),
        ({"max_bytes": str(2**41)}, "max_bytes"),
        ({"system1": "none"}, "system1"),  # the first series is always drawn
        ({"system2": "dgx-h900"}, "system2"),
        ({"algorithm3": "butterfly"}, "algorithm3"),
        ({"nodes1": "0"}, "nodes1"),
        ({"system3": "gb200-nvl72", "nodes3": "9"}, "nodes3"),  # beyond the system's 8 racks: the model says so
    ],
)
def test_a_bad_field_is_named(changes: dict[str, str], field: str) -> None:
    with pytest.raises(fields.FieldError) as raised:
        build(**changes)
    assert raised.value.problem.field == field


def test_a_published_sweep_is_drawn_beside_the_model_with_its_source() -> None:
    from app.simulator.published import BY_ID

    view = build(system1="dgx-h100", nodes1="1", system2="none", system3="none")
    measured = view.series[0].measured
    assert measured is not None
    assert measured.sweep is BY_ID["azure-nd-h100-v5"]
    published = dict(measured.sweep.rows)
    assert all(published[size] == busbw for size, busbw, _ in measured.points)
    assert {size for size, _, _ in measured.points} <= set(view.sizes)
    assert measured.busbw_at(2**30) == significant(published[2**30])
    for chart in view.layouts:
        assert len(chart.series[0].measured) == len(measured.points)
        assert chart.series[0].measured_line


def test_an_all_gather_published_on_two_nodes_is_drawn_for_that_operation_only() -> None:
    from app.simulator.published import BY_ID

    gathered = build(op="all_gather", system1="gcp-a4", nodes1="2", system2="none", system3="none")
    measured = gathered.series[0].measured
    assert measured is not None
    assert measured.sweep is BY_ID["google-a4-2n-all-gather"]
    reduced = build(op="all_reduce", system1="gcp-a4", nodes1="2", system2="none", system3="none")
    assert reduced.series[0].measured is None


def test_no_overlay_where_nothing_was_published() -> None:
    view = build(system1="dgx-b200", nodes1="1", system2="dgx-h100", nodes2="4", system3="none")
    assert all(series.measured is None for series in view.series)
    assert view.measured == ()


def test_figures_quoted_one_by_one_are_not_drawn_as_a_measured_curve() -> None:
    # Microsoft's 2 x 8 A100 figures (1 KiB, 1 GiB, 4 GiB) are three checked points, not a sweep.
    view = build(system1="dgx-a100", nodes1="2", system2="none", system3="none")
    assert view.series[0].measured is None


def test_calibrated_times_show_their_error_and_ideal_times_do_not() -> None:
    calibrated = build(system2="none", system3="none")
    point = next(p for p in calibrated.series[0].points if p.result.error_percent > 5)
    assert point.time_label.startswith("≈ ")
    assert point.time_label.endswith(f"(± {point.result.error_percent:.0f} %)")
    ideal = build(mode="ideal", system2="none", system3="none")
    assert all("±" not in p.time_label for p in ideal.series[0].points)
