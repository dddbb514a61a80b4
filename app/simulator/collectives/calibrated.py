"""Calibrated mode: the ideal traffic at achievable bandwidths, with NCCL's latency model and a bandwidth ramp.

Calibrated mode keeps the same traffic as ``ideal`` but replaces line rates by achievable ones, adds NCCL's
latency model and a bandwidth ramp (``calibration.py``), and takes the fastest of NCCL's protocols (LL, LL128,
Simple). Per stage, with the constants of ``calibration.py`` (NCCL's tuning.cc for the latencies, the protocol
fractions and the tree factor; published nccl-tests results, named with each fabric, for efficiencies and ramps):

    bandwidth    B * efficiency(fabric) [* TREE_EFFICIENCY_FACTOR for tree] * PROTOCOL_BANDWIDTH_FRACTION
    ramp         S_half = ramp_half_time_us * (that bandwidth before the protocol fraction), exponent p
    latency      BASE_LATENCY_US once per collective + STEP_LATENCY_US per step (NVLink/PCI steps inside a
                 node, network steps between nodes), or alpha_us per step when it is given

Only the steps that cross nodes pay the network latency: 2(N-1) of a ring all_reduce's 2(n-1), N-1 of a
ring's or chain's n-1, n-g of all_to_all's n-1; a tree is a chain of g-1 steps inside each node and
ceil(log2 N) levels between nodes each way (with ``alpha_us``: ceil(log2 n) steps of alpha, as in ideal).
A flat ring over nodes is limited both by the scale-up fabric and by the node's g rails, each with its own
efficiency and ramp, whichever is slower at that size.

Every factor is <= 1 and every latency >= the ideal one, so calibrated is never faster than ideal for the same
inputs.
"""

import math
from dataclasses import replace

from app.simulator.calibration import (
    BASE_LATENCY_US,
    NETWORK_CALIBRATIONS,
    PROTOCOL_BANDWIDTH_FRACTION,
    SCALE_UP_CALIBRATIONS,
    STEP_LATENCY_US,
    TREE_EFFICIENCY_FACTOR,
    FabricCalibration,
    LatencyClass,
    Protocol,
)
from app.simulator.collectives.terms import US, Setting, Term, Variant, make_variant, scale_out_link, scale_up_link

_RING_PROTOCOLS: tuple[Protocol, ...] = ("LL", "LL128", "Simple")
_DIRECT_PROTOCOLS: tuple[Protocol, ...] = ("LL", "Simple")


def calibrated_variants(setting: Setting, algorithm: str) -> list[Variant]:
    """One variant per protocol NCCL can run the algorithm with: NVLS and hierarchical only Simple, direct
    (sendrecv, all_to_all) LL and Simple, rings, chains and trees LL, LL128 and Simple."""
    if algorithm == "nvls":
        protocols: tuple[Protocol, ...] = ("Simple",)
    elif algorithm == "hierarchical":
        protocols = ("Simple",)
    elif algorithm == "direct":
        protocols = _DIRECT_PROTOCOLS
    else:
        protocols = _RING_PROTOCOLS
    return [make_variant(algorithm, p, calibrated_terms(setting, algorithm, p)) for p in protocols]


def _step_latency_s(setting: Setting, hardware: LatencyClass, algorithm: str, protocol: Protocol) -> float:
    if setting.alpha_s is not None:
        return setting.alpha_s
    return STEP_LATENCY_US[(hardware, algorithm, protocol)] * US


def calibrated_terms(setting: Setting, algorithm: str, protocol: Protocol) -> tuple[Term, ...]:
    """The stages of ``algorithm`` run with ``protocol``, as described in the module docstring."""
    op, n, g, nodes = setting.op, setting.ranks, setting.gpus_per_node, setting.nodes
    scale_up = SCALE_UP_CALIBRATIONS[setting.system.id]
    network = NETWORK_CALIBRATIONS[setting.system.scale_out]
    intra: LatencyClass = scale_up.latency_class
    family = "tree" if algorithm == "tree" else "nvls" if algorithm == "nvls" else "ring"
    base_s = BASE_LATENCY_US[(family, protocol)] * US
    protocol_fraction = PROTOCOL_BANDWIDTH_FRACTION[(family, protocol)]
    up_fabric = scale_up.ring
    if algorithm == "nvls" and scale_up.nvls is not None:
        up_fabric = scale_up.nvls
    up_efficiency = up_fabric.efficiency * (TREE_EFFICIENCY_FACTOR if algorithm == "tree" else 1.0)
    up_Bps = setting.scale_up_Bps * up_efficiency
    out_Bps = setting.scale_out_Bps * network.efficiency
    intra_s = _step_latency_s(setting, intra, family, protocol)
    inter_s = _step_latency_s(setting, "net", family, protocol)

    def term(
        phase: str,
        link: str,
        latency_s: float,
        traffic: float,
        bandwidth_Bps: float,
        fabric: FabricCalibration,
    ) -> Term:
        return Term(
            phase,
            link,
            latency_s,
            traffic,
            bandwidth_Bps * protocol_fraction,
            fabric.ramp_half_time_us * US * bandwidth_Bps,
            fabric.ramp_exponent,
        )

    def flat_term(phase: str, latency_s: float, traffic: float) -> Term:
        # Inside a node only NVLink/PCIe counts; across nodes the node's rails are a second, separate limit.
        single = term(phase, up_link, latency_s, traffic, up_Bps, up_fabric)
        if nodes == 1:
            return single
        rails_Bps = g * out_Bps
        return replace(
            single,
            alt_link=out_link,
            alt_bandwidth_Bps=rails_Bps * protocol_fraction,
            alt_half_bytes=network.ramp_half_time_us * US * rails_Bps,
            alt_ramp_exponent=network.ramp_exponent,
        )

    up_link, out_link = scale_up_link(setting), scale_out_link(setting)
    if algorithm == "hierarchical":
        return (
            term(
                "intra-node reduce-scatter",
                up_link,
                base_s + (g - 1) * intra_s,
                (g - 1) / g,
                up_Bps,
                up_fabric,
            ),
            term(
                "inter-node ring all-reduce",
                out_link,
                2 * (nodes - 1) * inter_s,
                2 * (nodes - 1) / nodes / g,
                out_Bps,
                network,
            ),
            term("intra-node all-gather", up_link, (g - 1) * intra_s, (g - 1) / g, up_Bps, up_fabric),
        )
    if algorithm == "nvls":
        half = (n + 1) / n / 2
        return (
            term(
                "NVLS reduce-scatter (in-switch reduction)",
                up_link,
                base_s + intra_s,
                half,
                up_Bps,
                up_fabric,
            ),
            term("NVLS all-gather (multicast)", up_link, 0.0, half, up_Bps, up_fabric),
        )
    if algorithm == "tree":
        # NCCL's tree: a chain inside each node, a binary tree between nodes (tuning.cc). With an explicit
        # alpha_us every level costs alpha, as in the ideal formula, so calibrated is never faster than ideal.
        if setting.alpha_s is not None:
            one_way_s = math.ceil(math.log2(n)) * setting.alpha_s
        else:
            one_way_s = (g - 1) * intra_s + math.ceil(math.log2(nodes)) * inter_s
        return (
            flat_term("tree reduce", base_s + one_way_s, 1.0),
            flat_term("tree broadcast", one_way_s, 1.0),
        )
    if op in ("sendrecv", "all_to_all"):
        if nodes == 1:
            direct_link, direct_Bps, direct_fabric = up_link, up_Bps, up_fabric
        else:
            direct_link, direct_Bps, direct_fabric = out_link, out_Bps, network
        if op == "sendrecv":
            hop_s = intra_s if nodes == 1 else inter_s
            return (term("send/receive", direct_link, base_s + hop_s, 1.0, direct_Bps, direct_fabric),)
        latency_s = base_s + (g - 1) * intra_s + (n - g) * inter_s
        return (term("all-to-all", direct_link, latency_s, (n - 1) / n, direct_Bps, direct_fabric),)
    # Rings and chains: only the hops that cross nodes pay the network latency (tuning.cc).
    if op == "all_reduce":
        inter_steps = 2 * (nodes - 1)
        half_latency_s = ((2 * (n - 1) - inter_steps) * intra_s + inter_steps * inter_s) / 2
        return (
            flat_term("ring reduce-scatter", base_s + half_latency_s, (n - 1) / n),
            flat_term("ring all-gather", half_latency_s, (n - 1) / n),
        )
    inter_steps = nodes - 1
    latency_s = base_s + ((n - 1) - inter_steps) * intra_s + inter_steps * inter_s
    if op in ("broadcast", "reduce"):
        return (flat_term(f"pipelined chain {op}", latency_s, 1.0),)
    return (flat_term(f"ring {op.replace('_', '-')}", latency_s, (n - 1) / n),)
