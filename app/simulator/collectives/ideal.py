"""Ideal mode: the pure alpha-beta model at line rate, exactly the DESIGN §4 table.

Notation: n ranks = N nodes x g GPUs per node, S the nccl-tests "size" in bytes, B a per-GPU per-direction
bandwidth in bytes/s, a the per-step latency (``alpha_us``, default 0). No protocol overhead, no ramp:

    sendrecv                          a + S/B   (B = scale-up inside a node, scale-out across nodes)
    ring all_reduce                   2(n-1)a + 2(n-1)/n * S/B
    ring all_gather, reduce_scatter   (n-1)a + (n-1)/n * S/B
    broadcast, reduce (chain)         (n-1)a + S/B
    all_to_all (direct, switched)     (n-1)a + (n-1)/n * S/B
    tree all_reduce                   2*ceil(log2 n)*a + 2*S/B
    nvls all_reduce                   a + (n+1)/n * S/B
    hierarchical all_reduce           2(g-1)a + 2(N-1)a + 2(g-1)/g * S/B_up + 2(N-1)/N * (S/g)/B_out
    flat ring across nodes            as ring with B = min(B_up, g * B_out)

Across nodes, all_to_all uses B = B_out: its traffic cannot be spread over the node's other rails (NCCL's
maintainer in NVIDIA/nccl-tests issue 267: "Alltoall cannot aggregate the bandwidth of multiple NICs").
"""

import math

from app.simulator.collectives.terms import (
    GB,
    US,
    Setting,
    Term,
    Variant,
    make_variant,
    scale_out_link,
    scale_up_link,
)
from app.simulator.collectives.validation import check_alpha, check_bandwidth, check_message_bytes


def transfer_time_s(message_bytes: int, bandwidth_GBps: float, latency_us: float = 0.0) -> float:
    """Time to move ``message_bytes`` over one link.

    ``latency_us * 1e-6 + message_bytes / (bandwidth_GBps * 1e9)``.
    """
    check_message_bytes(message_bytes, "message_bytes")
    check_bandwidth(bandwidth_GBps, "bandwidth_GBps")
    check_alpha(latency_us, "latency_us")
    return latency_us * US + message_bytes / (bandwidth_GBps * GB)


def ideal_variants(setting: Setting, algorithm: str) -> list[Variant]:
    """Ideal mode has no protocols: one variant at line rate."""
    return [make_variant(algorithm, "line rate", ideal_terms(setting, algorithm))]


def _flat(setting: Setting, up_Bps: float, out_Bps: float) -> tuple[float, str]:
    """Bandwidth of a flat ring or chain over all ranks, B = min(B_up, g * B_out), and its bottleneck link."""
    if setting.nodes == 1:
        return up_Bps, scale_up_link(setting)
    network_Bps = setting.gpus_per_node * out_Bps
    if up_Bps < network_Bps:
        return up_Bps, scale_up_link(setting)
    return network_Bps, scale_out_link(setting)


def ideal_terms(setting: Setting, algorithm: str) -> tuple[Term, ...]:
    """The stages of one row of the table above, each ``latency + traffic * S / B`` with no ramp."""
    op, n, g, nodes = setting.op, setting.ranks, setting.gpus_per_node, setting.nodes
    a = setting.alpha_s or 0.0
    up, out = setting.scale_up_Bps, setting.scale_out_Bps
    bandwidth, link = _flat(setting, up, out)
    if algorithm == "hierarchical":
        return (
            Term("intra-node reduce-scatter", scale_up_link(setting), (g - 1) * a, (g - 1) / g, up, 0.0, 1.0),
            Term(
                "inter-node ring all-reduce",
                scale_out_link(setting),
                2 * (nodes - 1) * a,
                2 * (nodes - 1) / nodes / g,
                out,
                0.0,
                1.0,
            ),
            Term("intra-node all-gather", scale_up_link(setting), (g - 1) * a, (g - 1) / g, up, 0.0, 1.0),
        )
    if algorithm == "nvls":
        half = (n + 1) / n / 2
        return (
            Term("NVLS reduce-scatter (in-switch reduction)", link, a, half, up, 0.0, 1.0),
            Term("NVLS all-gather (multicast)", link, 0.0, half, up, 0.0, 1.0),
        )
    if algorithm == "tree":
        steps = math.ceil(math.log2(n))
        return (
            Term("tree reduce", link, steps * a, 1.0, bandwidth, 0.0, 1.0),
            Term("tree broadcast", link, steps * a, 1.0, bandwidth, 0.0, 1.0),
        )
    if op == "sendrecv":
        sendrecv_link = scale_up_link(setting) if nodes == 1 else scale_out_link(setting)
        return (Term("send/receive", sendrecv_link, a, 1.0, up if nodes == 1 else out, 0.0, 1.0),)
    if op == "all_to_all":
        a2a_link = scale_up_link(setting) if nodes == 1 else scale_out_link(setting)
        return (Term("all-to-all", a2a_link, (n - 1) * a, (n - 1) / n, up if nodes == 1 else out, 0.0, 1.0),)
    if op == "all_reduce":
        return (
            Term("ring reduce-scatter", link, (n - 1) * a, (n - 1) / n, bandwidth, 0.0, 1.0),
            Term("ring all-gather", link, (n - 1) * a, (n - 1) / n, bandwidth, 0.0, 1.0),
        )
    if op in ("broadcast", "reduce"):
        return (Term(f"pipelined chain {op}", link, (n - 1) * a, 1.0, bandwidth, 0.0, 1.0),)
    return (Term(f"ring {op.replace('_', '-')}", link, (n - 1) * a, (n - 1) / n, bandwidth, 0.0, 1.0),)
