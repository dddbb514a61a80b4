"""The sentences a result lists under ``assumptions``: what was modelled, with which numbers, from which source.

``common_assumptions`` holds what every algorithm of a query shares (system, link rates, latency model);
``algorithm_assumptions`` adds what one algorithm adds (its traffic pattern, the calibrated efficiencies and
ramps it uses).
"""

from app.simulator.calibration import (
    HOST_LAUNCH_US,
    NCCL_ENV,
    NCCL_TUNING,
    PIPELINE_CHUNK_BYTES,
    SCALE_UP_CALIBRATIONS,
    TREE_EFFICIENCY_FACTOR,
    FabricCalibration,
    network_calibration,
)
from app.simulator.collectives.terms import Setting
from app.simulator.links import LINKS
from app.simulator.systems import System


def common_assumptions(
    system: System,
    mode: str,
    nodes: int,
    gpus_per_node: int,
    up_GBps: float,
    out_GBps: float,
    alpha_us: float | None,
) -> tuple[str, ...]:
    up_link, out_link = LINKS[system.scale_up], LINKS[system.scale_out]
    sentences = [
        f"{nodes} node(s) x {gpus_per_node} GPU(s) of {system.name} ({system.source.url}).",
        f"Scale-up: {up_link.name} at {up_GBps:g} GB/s per GPU per direction"
        + (
            " (overridden)." if up_GBps != system.scale_up_GBps else f" ({up_link.source.title}, {up_link.source.url})."
        ),
        f"Scale-out: {out_link.name}, {out_GBps:g} GB/s per GPU per direction, "
        + (
            "one NIC rail per GPU"
            if system.nics_per_node == system.gpus_per_node
            else f"{system.nics_per_node} devices per node shared by its {system.gpus_per_node} GPUs"
        )
        + (
            " (overridden)."
            if out_GBps != system.scale_out_GBps
            else f" ({out_link.source.title}, {out_link.source.url})."
        ),
    ]
    if mode == "ideal":
        alpha = 0.0 if alpha_us is None else alpha_us
        sentences.append(
            f"Ideal mode: pure alpha-beta model at line rate with alpha = {alpha:g} us per step and no "
            f"protocol "
            "overhead (DESIGN §4)."
        )
    else:
        if alpha_us is None:
            sentences.append(
                "Per-collective and per-step latencies are NCCL's own model (baseLat + hwLat per step, "
                "NVLink/PCI inside a node, network between nodes); each protocol keeps its share of Simple's "
                "bandwidth (ring LL 1/4 for all-reduce, 1/3 otherwise; LL128 0.92), and the fastest "
                f"algorithm and protocol at each size is used, as NCCL's tuner does ({NCCL_TUNING.title}, "
                f"{NCCL_TUNING.url})."
            )
            sentences.append(
                f"Every collective also pays {HOST_LAUNCH_US:g} us for its launch, as nccl-tests measures it in its "
                "default mode (one host launch per iteration, no CUDA graph); fitted to the latency-bound rows "
                "of the published GB200 and H200 sweeps (tests/data/nccl_sweeps)."
            )
        else:
            sentences.append(
                f"Every step costs alpha = {alpha_us:g} us (overridden) on top of NCCL's per-collective base "
                f"latency ({NCCL_TUNING.url})."
            )
        sentences.append(
            "error_percent is the model's expected error for this size regime: the worst residual of the "
            "published nccl-tests sweeps that ran this operation on this system, GPU and node count, and the "
            "worst of any sweep where none did (app/simulator/accuracy.py)."
        )
    return tuple(sentences)


def _fabric_sentence(what: str, fabric: FabricCalibration) -> str:
    ramp = (
        f"Bandwidth ramps up with size as 1/(1 + (S_half/S)^{fabric.ramp_exponent:g}), "
        f"S_half = {fabric.ramp_half_time_us:g} us x achievable bandwidth"
        if fabric.ramp_half_time_us > 0
        else "No ramp beyond the latency"
    )
    fill = (
        f"; Simple pays a pipeline fill of up to {fabric.fill_us:g} us, reached at {fabric.fill_bytes / 1024:g} KiB"
        if fabric.fill_us > 0
        else ""
    )
    return (
        f"{what} reaches {fabric.efficiency:.0%} of line rate: {fabric.evidence} ({fabric.source.title}, "
        f"{fabric.source.url}). {ramp}{fill} (fitted to published curves)."
    )


def algorithm_assumptions(setting: Setting, algorithm: str) -> tuple[str, ...]:
    if setting.ranks == 1:
        return ("One rank has no peer: nothing crosses a link, so time, algbw and busbw are 0.",)
    sentences: list[str] = []
    if algorithm == "nvls":
        sentences.append(
            "NVLS: NVSwitch reduces in the switch (multimem load-reduce) and multicasts the result, so "
            "each GPU "
            "moves (n+1)/n x S per direction; busbw uses the all_reduce factor 2(n-1)/n and can exceed "
            "line rate."
        )
    if algorithm == "hierarchical":
        intra = (
            "NCCL's NVLSTree: NVLS inside each node (in-switch reduction and multicast)"
            if setting.system.nvls
            else "NCCL's Tree: a chain inside each node carries the message up and down, at 92 % of the ring's "
            "bandwidth"
        )
        sentences.append(
            f"Hierarchical ({intra}), "
            "all-reduce of S/g between nodes on each rail, pipelined in chunks of "
            f"{PIPELINE_CHUNK_BYTES // 1024} KiB per channel ({NCCL_ENV.url}): the slowest phase bounds the time, "
            "plus one chunk's time through the other (fill and drain)."
        )
    if setting.op == "all_to_all" and setting.nodes > 1:
        sentences.append(
            "Across nodes all-to-all is bounded by one NIC per GPU: it cannot aggregate the node's rails "
            "(NVIDIA/nccl-tests issue 267, https://github.com/NVIDIA/nccl-tests/issues/267)."
        )
    if setting.mode == "calibrated":
        scale_up = SCALE_UP_CALIBRATIONS[setting.system.id]
        fabric = scale_up.nvls if algorithm == "nvls" and scale_up.nvls is not None else scale_up.ring
        label = (
            "NVLS on this fabric" if algorithm == "nvls" else f"A ring-style transfer over {setting.system.scale_up}"
        )
        sentences.append(_fabric_sentence(label, fabric))
        if algorithm == "tree":
            sentences.append(
                f"Tree all-reduce keeps {TREE_EFFICIENCY_FACTOR:.0%} of the ring's bandwidth ({NCCL_TUNING.url})."
            )
        if setting.nodes > 1:
            sentences.append(
                _fabric_sentence(
                    f"The {setting.system.scale_out} network",
                    network_calibration(setting.system.id, setting.system.scale_out),
                )
            )
    return tuple(sentences)
