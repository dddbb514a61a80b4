"""Ideal mode is exactly the DESIGN §4 table: each expectation is computed here by hand from the formula."""

import math

import pytest

from app.simulator import CollectiveQuery, simulate_collective

S = 2**30  # 1 GiB
A_US = 5.0
A = A_US * 1e-6
B_UP = 450e9  # dgx-h100: NVLink 4, per GPU per direction
B_OUT = 50e9  # dgx-h100: one 400 Gb/s NDR rail per GPU
REL = 1e-12


def ideal(op: str, **kwargs: object) -> tuple[float, float, float]:
    result = simulate_collective(CollectiveQuery(op, system="dgx-h100", mode="ideal", alpha_us=A_US, **kwargs), S)  # type: ignore[arg-type]
    return result.time_s, result.algbw_GBps, result.busbw_GBps


def check(op: str, expected_time_s: float, factor: float, **kwargs: object) -> None:
    time_s, algbw, busbw = ideal(op, **kwargs)
    assert time_s == pytest.approx(expected_time_s, rel=REL)
    assert algbw == pytest.approx(S / expected_time_s / 1e9, rel=REL)
    assert busbw == pytest.approx(S / expected_time_s / 1e9 * factor, rel=REL)


def test_sendrecv_inside_a_node_uses_scale_up() -> None:
    check("sendrecv", A + S / B_UP, 1.0)


def test_sendrecv_across_nodes_uses_scale_out() -> None:
    check("sendrecv", A + S / B_OUT, 1.0, nodes=2)


def test_ring_all_reduce() -> None:
    n = 8
    check("all_reduce", 2 * (n - 1) * A + 2 * (n - 1) / n * S / B_UP, 2 * (n - 1) / n, algorithm="ring")


@pytest.mark.parametrize("op", ["all_gather", "reduce_scatter"])
def test_ring_all_gather_and_reduce_scatter(op: str) -> None:
    n = 8
    check(op, (n - 1) * A + (n - 1) / n * S / B_UP, (n - 1) / n)


@pytest.mark.parametrize("op", ["broadcast", "reduce"])
def test_pipelined_chain_broadcast_and_reduce(op: str) -> None:
    n = 8
    check(op, (n - 1) * A + S / B_UP, 1.0)


def test_direct_all_to_all_inside_a_node() -> None:
    n = 8
    check("all_to_all", (n - 1) * A + (n - 1) / n * S / B_UP, (n - 1) / n)


def test_direct_all_to_all_across_nodes_is_bound_by_one_nic_per_gpu() -> None:
    n = 16
    check("all_to_all", (n - 1) * A + (n - 1) / n * S / B_OUT, (n - 1) / n, nodes=2)


def test_tree_all_reduce() -> None:
    n = 8
    check("all_reduce", 2 * math.ceil(math.log2(n)) * A + 2 * S / B_UP, 2 * (n - 1) / n, algorithm="tree")


def test_tree_all_reduce_with_a_rank_count_that_is_not_a_power_of_two() -> None:
    n = 6
    check("all_reduce", 2 * 3 * A + 2 * S / B_UP, 2 * (n - 1) / n, algorithm="tree", gpus_per_node=6)


def test_nvls_all_reduce() -> None:
    n = 8
    check("all_reduce", A + (n + 1) / n * S / B_UP, 2 * (n - 1) / n, algorithm="nvls")


def test_hierarchical_all_reduce() -> None:
    g, nodes = 8, 4
    n = g * nodes
    expected = (
        2 * (g - 1) * A + 2 * (nodes - 1) * A + 2 * (g - 1) / g * S / B_UP + 2 * (nodes - 1) / nodes * (S / g) / B_OUT
    )
    check("all_reduce", expected, 2 * (n - 1) / n, algorithm="hierarchical", nodes=nodes)


def test_flat_ring_across_nodes_uses_min_of_scale_up_and_node_scale_out() -> None:
    g, nodes = 8, 4
    n = g * nodes
    bandwidth = min(B_UP, g * B_OUT)  # 400 GB/s: the 8 rails of a node are the bottleneck
    check(
        "all_reduce", 2 * (n - 1) * A + 2 * (n - 1) / n * S / bandwidth, 2 * (n - 1) / n, algorithm="ring", nodes=nodes
    )


def test_flat_ring_across_nodes_limited_by_scale_up_when_network_is_faster() -> None:
    g, nodes = 4, 2
    n = g * nodes
    bandwidth = min(100e9, g * B_OUT)  # scale-up overridden to 100 GB/s, below 4 x 50 GB/s
    check(
        "all_gather",
        (n - 1) * A + (n - 1) / n * S / bandwidth,
        (n - 1) / n,
        nodes=nodes,
        gpus_per_node=g,
        scale_up_GBps=100.0,
    )


def test_overrides_replace_the_preset_bandwidths() -> None:
    check("sendrecv", A + S / 123e9, 1.0, scale_up_GBps=123.0)
    check("sendrecv", A + S / 7e9, 1.0, nodes=3, scale_out_GBps=7.0)


def test_alpha_defaults_to_zero_in_ideal_mode() -> None:
    result = simulate_collective(CollectiveQuery("all_reduce", system="dgx-a100", algorithm="ring", mode="ideal"), S)
    assert result.time_s == pytest.approx(2 * 7 / 8 * S / 300e9, rel=REL)
    assert result.busbw_GBps == pytest.approx(300.0, rel=REL)


def test_single_rank_moves_nothing() -> None:
    result = simulate_collective(CollectiveQuery("all_reduce", gpus_per_node=1), S)
    assert (result.time_s, result.algbw_GBps, result.busbw_GBps, result.phases) == (0.0, 0.0, 0.0, ())
    assert result.bottleneck == "none"
    assert result.ranks == 1


def test_phases_add_up_to_the_time_and_name_links() -> None:
    result = simulate_collective(CollectiveQuery("all_reduce", nodes=4, algorithm="hierarchical", mode="ideal"), S)
    assert [p.link for p in result.phases] == ["nvlink4", "ib-ndr", "nvlink4"]
    assert sum(p.time_s for p in result.phases) == pytest.approx(result.time_s, rel=REL)


def test_bottleneck_is_latency_for_tiny_messages_and_the_link_for_large_ones() -> None:
    assert simulate_collective(CollectiveQuery("all_reduce"), 8).bottleneck == "latency"
    assert simulate_collective(CollectiveQuery("all_reduce", nodes=2, algorithm="ring"), 2**33).bottleneck in (
        "ib-ndr",
        "nvlink4",
    )
    assert simulate_collective(CollectiveQuery("sendrecv", nodes=2), 2**33).bottleneck == "ib-ndr"


def test_to_dict_has_exactly_the_design_fields() -> None:
    payload = simulate_collective(CollectiveQuery("all_reduce"), S).to_dict()
    assert list(payload) == [
        "op",
        "algorithm",
        "mode",
        "ranks",
        "message_bytes",
        "time_s",
        "algbw_GBps",
        "busbw_GBps",
        "bottleneck",
        "phases",
        "assumptions",
        "error_percent",
    ]
    assert all(list(phase) == ["name", "link", "time_s"] for phase in payload["phases"])
    assert all(isinstance(sentence, str) for sentence in payload["assumptions"])
    assert payload["algorithm"] != "auto"
