"""The derived quantities agree with the ideal model they are derived from (DESIGN §4's table)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.simulator import LINKS, CollectiveQuery, SimulationError, derived, simulate_collective
from app.simulator.collectives.results import busbw_factor
from app.simulator.models import compute

NVLINK4_GBPS = LINKS["nvlink4"].per_direction_GBps


@given(ranks=st.integers(2, 8), alpha_us=st.integers(1, 30))
def test_at_the_crossover_the_ring_spends_as_long_on_latency_as_on_bandwidth(ranks: int, alpha_us: int) -> None:
    size = derived.ring_crossover_bytes(ranks, alpha_us, NVLINK4_GBPS)
    result = simulate_collective(
        CollectiveQuery(
            "all_reduce", system="dgx-h100", gpus_per_node=ranks, algorithm="ring", mode="ideal", alpha_us=alpha_us
        ),
        round(size),
    )
    latency = 2 * (ranks - 1) * alpha_us * 1e-6
    assert result.time_s == pytest.approx(2 * latency, rel=1e-6)


@given(message_bytes=st.integers(2**30, 2**34), alpha_us=st.integers(1, 30))
def test_the_bandwidth_bound_ranks_are_the_last_below_the_crossover(message_bytes: int, alpha_us: int) -> None:
    ranks = derived.ring_bandwidth_bound_ranks(message_bytes, alpha_us, 50.0)
    assert derived.ring_crossover_bytes(ranks, alpha_us, 50.0) <= message_bytes * (1 + 1e-9)
    assert derived.ring_crossover_bytes(ranks + 1, alpha_us, 50.0) > message_bytes


@given(ranks=st.integers(2, 8), alpha_us=st.integers(1, 10), budget_us=st.integers(200, 20_000))
def test_the_budget_size_finishes_exactly_in_the_budget(ranks: int, alpha_us: int, budget_us: int) -> None:
    size = derived.ring_budget_bytes(ranks, alpha_us, NVLINK4_GBPS, budget_us)
    assert size > 0
    result = simulate_collective(
        CollectiveQuery(
            "all_reduce", system="dgx-h100", gpus_per_node=ranks, algorithm="ring", mode="ideal", alpha_us=alpha_us
        ),
        round(size),
    )
    assert result.time_s == pytest.approx(budget_us * 1e-6, rel=1e-6)


def test_a_budget_the_latency_alone_exceeds_holds_nothing() -> None:
    assert derived.ring_budget_bytes(8, 10, NVLINK4_GBPS, 100) == 0.0


@given(
    op=st.sampled_from(["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"]),
    ranks=st.integers(2, 1024),
    message_bytes=st.integers(1, 2**36),
    time_us=st.integers(1, 10**7),
)
def test_busbw_and_time_are_inverse_as_nccl_tests_prints_them(
    op: str, ranks: int, message_bytes: int, time_us: int
) -> None:
    busbw_Bps = derived.busbw_from_time_Bps(op, message_bytes, time_us, ranks)
    assert busbw_Bps == pytest.approx(message_bytes / (time_us * 1e-6) * busbw_factor(op, ranks))
    back = derived.time_from_busbw_s(op, message_bytes, busbw_Bps / 1e9, ranks)
    assert back == pytest.approx(time_us * 1e-6, rel=1e-9)
    assert derived.algbw_from_busbw_Bps(op, busbw_Bps / 1e9, ranks) == pytest.approx(message_bytes / (time_us * 1e-6))


def test_the_nvls_saving_is_the_difference_of_the_two_ideal_times() -> None:
    saved = compute("nvls_time_saved", {"system": "dgx-h100", "gpus_per_node": 8, "message_bytes": 2**30}).value
    assert saved == pytest.approx((8 - 3) / 8 * 2**30 / 450e9)


def test_a_nodes_rails_add_up() -> None:
    assert compute("node_transfer_time", {"system": "dgx-b200", "message_bytes": 4 * 10**9}).value == pytest.approx(
        4e9 / (8 * 50e9)
    )
    assert compute("nccl_size", {"op": "all_gather", "shard_bytes": 2**20, "ranks": 16}).value == 16 * 2**20
    assert compute("data_in_time", {"link": "pcie5", "time_ms": 10}).value == pytest.approx(63e9 * 0.01)


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda: derived.busbw_from_time_Bps("all_reduce", 2**20, 0, 8), "time_us"),
        (lambda: derived.time_from_busbw_s("all_reduce", 2**20, -1, 8), "busbw_GBps"),
        (lambda: derived.algbw_from_busbw_Bps("gather", 100, 8), "op"),
        (lambda: derived.ring_crossover_bytes(1, 5, 50), "ranks"),
        (lambda: derived.ring_bandwidth_bound_ranks(2**30, math.nan, 50), "alpha_us"),
        (lambda: derived.node_transfer_time_s(2**30, 0, 50), "nics"),
        (lambda: derived.nccl_size_bytes("all_reduce", 2**20, 8), "op"),
    ],
)
def test_bad_parameters_are_refused_by_name(call: object, parameter: str) -> None:
    assert callable(call)
    with pytest.raises(SimulationError) as raised:
        call()
    assert raised.value.parameter == parameter
