"""Calibrated mode: the ideal traffic at achievable bandwidths, with NCCL's latency and protocol model, a
bandwidth ramp and a pipeline fill (formulas and constants: ``calibration.py``).

Each algorithm runs as one variant per protocol NCCL offers for it, and the fastest wins at each size, as
NCCL's tuner picks the algorithm and protocol of least modelled time (tuning.cc): LL at small sizes, LL128
in between, Simple for large messages. Per variant:

    latency      baseLat(algorithm, protocol) + hwLat per step: NVLink/PCI steps inside a node, network
                 steps between nodes (only the hops that cross nodes: 2(N-1) of a ring all_reduce's 2(n-1));
                 LL's intra-node steps cost 1.8x across nodes and a ring's Simple latency 1.9x (tuning.cc);
                 or alpha_us per step when it is given
    bandwidth    B * efficiency(fabric) [* 0.92 for tree] * protocol fraction, with the fabric's ramp
    fill         Simple only: the pipeline's fill and drain, growing up to one chunk per channel

Across nodes:
- ring: one flat ring, bounded both by the scale-up fabric and by the node's g rails (whichever is slower
  at that size);
- tree: a chain inside each node and a binary tree between nodes, reduce then broadcast, each bounded the
  same way;
- hierarchical (NCCL's NVLSTree on NVLink SHARP systems: NVLS inside the node; NCCL's Tree elsewhere: a chain
  inside the node at the tree's 92 %), all-reduce of S/g between nodes on each rail, pipelined: the slowest
  phase bounds the time, plus one chunk's time through the other (fill and drain).

Every factor is <= 1 and every latency >= the ideal one, so calibrated is never faster than ideal for the same
inputs, with one exception by design: ideal (DESIGN §4) adds the hierarchical phases in sequence, calibrated
pipelines them as NCCL does, so it can beat the ideal sum but never the slowest phase at line rate.
"""

import math
from dataclasses import replace

from app.simulator.calibration import (
    BASE_LATENCY_US,
    HOST_LAUNCH_US,
    LL_MULTI_NODE_INTRA_FACTOR,
    PIPELINE_CHUNK_BYTES,
    RING_SIMPLE_MULTI_NODE_FACTOR,
    SCALE_UP_CALIBRATIONS,
    STEP_LATENCY_US,
    TREE_EFFICIENCY_FACTOR,
    FabricCalibration,
    LatencyClass,
    Protocol,
    network_calibration,
    protocol_fraction,
)
from app.simulator.collectives.terms import US, Setting, Term, Variant, make_variant, scale_out_link, scale_up_link

_RING_PROTOCOLS: tuple[Protocol, ...] = ("LL", "LL128", "Simple")
_DIRECT_PROTOCOLS: tuple[Protocol, ...] = ("LL", "Simple")


def calibrated_variants(setting: Setting, algorithm: str) -> list[Variant]:
    """One variant per protocol NCCL can run the algorithm with: NVLS and hierarchical only Simple, direct
    (sendrecv, all_to_all) LL and Simple, rings, chains and trees LL, LL128 and Simple."""
    if algorithm in ("nvls", "hierarchical"):
        protocols: tuple[Protocol, ...] = ("Simple",)
    elif algorithm == "direct":
        protocols = _DIRECT_PROTOCOLS
    else:
        protocols = _RING_PROTOCOLS
    return [make_variant(algorithm, p, calibrated_terms(setting, algorithm, p)) for p in protocols]


def _step_latency_s(setting: Setting, hardware: LatencyClass, family: str, protocol: Protocol) -> float:
    if setting.alpha_s is not None:
        return setting.alpha_s
    latency_us = STEP_LATENCY_US[(hardware, family, protocol)]
    if hardware != "net" and protocol == "LL" and setting.nodes > 1:
        latency_us *= LL_MULTI_NODE_INTRA_FACTOR
    if hardware == "net":
        latency_us += network_calibration(setting.system.id, setting.system.scale_out).extra_step_latency_us
    elif family != "nvls":
        latency_us += SCALE_UP_CALIBRATIONS[setting.system.id].ring.extra_step_latency_us
    return latency_us * US


def calibrated_terms(setting: Setting, algorithm: str, protocol: Protocol) -> tuple[Term, ...]:
    """The stages of ``algorithm`` run with ``protocol``, as described in the module docstring."""
    op, n, g, nodes = setting.op, setting.ranks, setting.gpus_per_node, setting.nodes
    scale_up = SCALE_UP_CALIBRATIONS[setting.system.id]
    network = network_calibration(setting.system.id, setting.system.scale_out)
    intra: LatencyClass = scale_up.latency_class
    family = "tree" if algorithm == "tree" else "nvls" if algorithm == "nvls" else "ring"
    base_s = (BASE_LATENCY_US[(family, protocol)] + HOST_LAUNCH_US) * US
    fraction = protocol_fraction(family, protocol, op)
    up_fabric = scale_up.ring
    uses_nvls = algorithm == "nvls" or (algorithm == "hierarchical" and setting.system.nvls)
    if uses_nvls and scale_up.nvls is not None:
        up_fabric = scale_up.nvls
    up_efficiency = up_fabric.efficiency
    if op == "all_gather" and up_fabric.all_gather_efficiency is not None:
        up_efficiency = up_fabric.all_gather_efficiency
    up_efficiency *= TREE_EFFICIENCY_FACTOR if algorithm == "tree" else 1.0
    up_Bps = setting.scale_up_Bps * up_efficiency
    out_Bps = setting.scale_out_Bps * network.efficiency
    intra_s = _step_latency_s(setting, intra, family, protocol)
    inter_s = _step_latency_s(setting, "net", family, protocol)
    simple = protocol == "Simple"

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
            bandwidth_Bps * fraction,
            fabric.ramp_half_time_us * US * bandwidth_Bps,
            fabric.ramp_exponent,
            fill_s=fabric.fill_us * US if simple else 0.0,
            fill_bytes=fabric.fill_bytes,
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
            alt_bandwidth_Bps=rails_Bps * fraction,
            alt_half_bytes=network.ramp_half_time_us * US * rails_Bps,
            alt_ramp_exponent=network.ramp_exponent,
        )

    up_link, out_link = scale_up_link(setting), scale_out_link(setting)
    if algorithm == "hierarchical":
        return (_hierarchical_term(setting, uses_nvls, base_s, intra_s, inter_s, up_Bps, out_Bps, up_fabric),)
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
            replace(term("NVLS all-gather (multicast)", up_link, 0.0, half, up_Bps, up_fabric), fill_s=0.0),
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
            replace(flat_term("tree broadcast", one_way_s, 1.0), fill_s=0.0),
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
        steps_s = (2 * (n - 1) - inter_steps) * intra_s + inter_steps * inter_s
        if nodes > 1 and simple and setting.alpha_s is None:
            steps_s *= RING_SIMPLE_MULTI_NODE_FACTOR
        half_latency_s = steps_s / 2
        return (
            flat_term("ring reduce-scatter", base_s + half_latency_s, (n - 1) / n),
            replace(flat_term("ring all-gather", half_latency_s, (n - 1) / n), fill_s=0.0),
        )
    inter_steps = nodes - 1
    latency_s = base_s + ((n - 1) - inter_steps) * intra_s + inter_steps * inter_s
    if op in ("broadcast", "reduce"):
        return (flat_term(f"pipelined chain {op}", latency_s, 1.0),)
    return (flat_term(f"ring {op.replace('_', '-')}", latency_s, (n - 1) / n),)


def _hierarchical_term(
    setting: Setting,
    uses_nvls: bool,
    base_s: float,
    intra_s: float,
    inter_s: float,
    up_Bps: float,
    out_Bps: float,
    up_fabric: FabricCalibration,
) -> Term:
    """Inside the node, then S/g between nodes on each rail, pipelined in chunks.

    NVLink SHARP systems run NCCL's NVLSTree: per byte of message the scale-up link carries (g+1)/g (the switch
    reduces and multicasts). Elsewhere NCCL's Tree: a chain inside the node carries the whole message up (reduce)
    and down (broadcast), 2 per byte, at the tree's 92 % of the ring's bandwidth (tuning.cc). Each rail carries
    2(N-1)/N / g. Both run at once on different chunks, so the slower sets the bandwidth time; the other adds one
    chunk's time (fill and drain).
    """
    g, nodes = setting.gpus_per_node, setting.nodes
    network = network_calibration(setting.system.id, setting.system.scale_out)
    intra_traffic = 0.0 if g == 1 else (g + 1) / g if uses_nvls else 2.0
    if not uses_nvls:
        up_Bps *= TREE_EFFICIENCY_FACTOR
    inter_traffic = 2 * (nodes - 1) / nodes / g
    if setting.alpha_s is not None:
        # As in the ideal formula, so that an explicit alpha never makes calibrated faster than ideal.
        intra_latency_s, inter_latency_s = 2 * (g - 1) * setting.alpha_s, 2 * (nodes - 1) * setting.alpha_s
    else:
        # NVLSTree (tuning.cc): one NVLS pass inside the node (hwLat NVLink NVLS), a tree of log2(N) levels up
        # and down between nodes; elsewhere a chain of g GPUs up and down inside the node.
        nvls_s = STEP_LATENCY_US[(SCALE_UP_CALIBRATIONS[setting.system.id].latency_class, "nvls", "Simple")] * US
        intra_latency_s = nvls_s if uses_nvls else 2 * (g - 1) * intra_s
        inter_latency_s = 2 * math.ceil(math.log2(nodes)) * inter_s
    up_s_per_byte = intra_traffic / up_Bps
    out_s_per_byte = inter_traffic / out_Bps
    chunk = PIPELINE_CHUNK_BYTES
    fill_s = chunk * min(up_s_per_byte, out_s_per_byte)
    link_up, link_out = scale_up_link(setting), scale_out_link(setting)
    latency_s = base_s + intra_latency_s + inter_latency_s
    if intra_traffic == 0.0:
        # One GPU per node: nothing to do inside the node, only the rails' all-reduce.
        return Term(
            "inter-node all-reduce",
            link_out,
            latency_s,
            inter_traffic,
            out_Bps,
            network.ramp_half_time_us * US * out_Bps,
            network.ramp_exponent,
            fill_s=network.fill_us * US,
            fill_bytes=network.fill_bytes,
        )
    # One traffic factor for both limits: the network's is folded into its bandwidth.
    return Term(
        "pipelined hierarchical all-reduce (intra-node reduce-scatter + all-gather, inter-node all-reduce)",
        link_up,
        latency_s,
        intra_traffic,
        up_Bps,
        up_fabric.ramp_half_time_us * US * up_Bps,
        up_fabric.ramp_exponent,
        alt_link=link_out,
        alt_bandwidth_Bps=out_Bps * intra_traffic / inter_traffic,
        alt_half_bytes=network.ramp_half_time_us * US * out_Bps,
        alt_ramp_exponent=network.ramp_exponent,
        fill_s=fill_s + up_fabric.fill_us * US,
        fill_bytes=max(chunk, up_fabric.fill_bytes),
    )
