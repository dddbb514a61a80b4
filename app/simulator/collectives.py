"""Cost models of NCCL-style collectives: how long one takes, and the bandwidths nccl-tests would print.

Notation: n ranks = N nodes x g GPUs per node, S the nccl-tests "size" in bytes, B a per-GPU per-direction
bandwidth in bytes/s, a the per-step latency. Ideal mode is exactly the DESIGN §4 table (pure alpha-beta at
line rate, a = ``alpha_us``, default 0):

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

Calibrated mode keeps the same traffic but replaces line rates by achievable ones, adds NCCL's latency
model and a bandwidth ramp (``calibration.py``), and takes the fastest of NCCL's protocols (LL, LL128,
Simple). Every factor is <= 1 and every latency >= the ideal one, so calibrated is never faster than ideal
for the same inputs.

algbw = S / time and busbw = algbw * factor, with the nccl-tests factor of the operation whatever the
algorithm: all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n; broadcast, reduce, sendrecv 1
(NVIDIA/nccl-tests doc/PERFORMANCE.md). GB/s are 10^9 bytes per second.

One rank (n = 1) has no peer: nothing crosses a link, so time, algbw and busbw are all 0, the bottleneck is
"none" and there are no phases (nccl-tests also prints a busbw of 0 for all_reduce on one rank).
"""

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, NamedTuple

from app.simulator.calibration import (
    BASE_LATENCY_US,
    NCCL_TUNING,
    NETWORK_CALIBRATIONS,
    PROTOCOL_BANDWIDTH_FRACTION,
    SCALE_UP_CALIBRATIONS,
    STEP_LATENCY_US,
    TREE_EFFICIENCY_FACTOR,
    FabricCalibration,
    LatencyClass,
    Protocol,
)
from app.simulator.errors import SimulationError
from app.simulator.links import LINKS
from app.simulator.systems import SYSTEMS, System

OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all", "sendrecv")
ALGORITHMS = ("auto", "ring", "tree", "nvls", "hierarchical", "direct")
MODES = ("calibrated", "ideal")
MIN_MESSAGE_BYTES = 1
MAX_MESSAGE_BYTES = 2**40
# 1 MB/s: below it, 2^40 bytes would take longer than floats represent well, and a subnormal bandwidth would
# overflow the time to infinity.
MIN_BANDWIDTH_OVERRIDE_GBPS = 0.001
MAX_BANDWIDTH_OVERRIDE_GBPS = 100_000.0
MAX_ALPHA_US = 1e6

_GB = 1e9
_US = 1e-6

# Which algorithms model each operation, in the order "auto" prefers them on a tie.
_APPLICABLE: dict[str, tuple[str, ...]] = {
    "all_reduce": ("ring", "tree", "nvls", "hierarchical"),
    "all_gather": ("ring",),
    "reduce_scatter": ("ring",),
    "broadcast": ("ring",),
    "reduce": ("ring",),
    "all_to_all": ("direct",),
    "sendrecv": ("direct",),
}
_RING_PROTOCOLS: tuple[Protocol, ...] = ("LL", "LL128", "Simple")
_DIRECT_PROTOCOLS: tuple[Protocol, ...] = ("LL", "Simple")


# Phase and CollectiveResult are NamedTuples, not frozen dataclasses like the rest of the package: a sweep builds
# hundreds of them, and a frozen dataclass's __init__ (one object.__setattr__ per field) cost three times as much,
# most of the 1 ms budget for a full sweep of every operation. They are just as immutable and typed.
class Phase(NamedTuple):
    """One stage of a collective and the link that carries it; the phases of a result add up to its time."""

    name: str
    link: str
    time_s: float


class CollectiveResult(NamedTuple):
    """What one collective costs, in the terms nccl-tests prints."""

    op: str
    algorithm: str
    mode: str
    ranks: int
    message_bytes: int
    time_s: float
    algbw_GBps: float
    busbw_GBps: float
    bottleneck: str
    phases: tuple[Phase, ...]
    assumptions: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """The ``/api/v1/simulate/collective`` response (DESIGN §4)."""
        return {
            "op": self.op,
            "algorithm": self.algorithm,
            "mode": self.mode,
            "ranks": self.ranks,
            "message_bytes": self.message_bytes,
            "time_s": self.time_s,
            "algbw_GBps": self.algbw_GBps,
            "busbw_GBps": self.busbw_GBps,
            "bottleneck": self.bottleneck,
            "phases": [{"name": p.name, "link": p.link, "time_s": p.time_s} for p in self.phases],
            "assumptions": list(self.assumptions),
        }


@dataclass(frozen=True, slots=True)
class _Term:
    """One stage: ``latency_s + traffic_factor * S * ramp(S) / bandwidth_Bps``, ramp(S) = 1 + (half_bytes / S) ** p.

    ``traffic_factor`` is the bytes the busiest link carries per byte of message; ``half_bytes`` is 0 in ideal
    mode (no ramp). A stage that crosses two fabrics (a flat ring over nodes) also has an ``alt_`` limit; the
    slower of the two sets its time at each size, so the time falls whenever either bandwidth rises.
    """

    phase: str
    link: str
    latency_s: float
    traffic_factor: float
    bandwidth_Bps: float
    half_bytes: float
    ramp_exponent: float
    alt_link: str = ""
    alt_bandwidth_Bps: float = 0.0
    alt_half_bytes: float = 0.0
    alt_ramp_exponent: float = 1.0


@dataclass(frozen=True, slots=True)
class _Variant:
    """One algorithm run with one protocol."""

    algorithm: str
    protocol: str
    terms: tuple[_Term, ...]
    # When every term shares the same limits (all but hierarchical), the total time has a closed form:
    # (latency_s, s_per_byte, half_bytes, exponent, alt_s_per_byte, alt_half_bytes, alt_exponent).
    closed_form: tuple[float, float, float, float, float, float, float] | None = None


def _variant(algorithm: str, protocol: str, terms: tuple[_Term, ...]) -> _Variant:
    first = terms[0]
    limits = {
        (t.bandwidth_Bps, t.half_bytes, t.ramp_exponent, t.alt_bandwidth_Bps, t.alt_half_bytes, t.alt_ramp_exponent)
        for t in terms
    }
    if len(limits) != 1:
        return _Variant(algorithm, protocol, terms)
    traffic = sum(t.traffic_factor for t in terms)
    closed_form = (
        sum(t.latency_s for t in terms),
        traffic / first.bandwidth_Bps,
        first.half_bytes,
        first.ramp_exponent,
        traffic / first.alt_bandwidth_Bps if first.alt_bandwidth_Bps > 0.0 else 0.0,
        first.alt_half_bytes,
        first.alt_ramp_exponent,
    )
    return _Variant(algorithm, protocol, terms, closed_form)


@dataclass(frozen=True, slots=True, eq=False)  # identity hash: a plan is a cache key for its sweeps
class _Plan:
    """Everything about a query that does not depend on the message size, computed once per distinct query."""

    op: str
    mode: str
    ranks: int
    busbw_factor: float
    resolved_if_idle: str
    variants: tuple[_Variant, ...]
    assumptions: dict[str, tuple[str, ...]]


def transfer_time_s(message_bytes: int, bandwidth_GBps: float, latency_us: float = 0.0) -> float:
    """Time to move ``message_bytes`` over one link.

    ``latency_us * 1e-6 + message_bytes / (bandwidth_GBps * 1e9)``.
    """
    _check_message_bytes(message_bytes, "message_bytes")
    _check_bandwidth(bandwidth_GBps, "bandwidth_GBps")
    _check_alpha(latency_us, "latency_us")
    return latency_us * _US + message_bytes / (bandwidth_GBps * _GB)


def simulate_collective(
    op: str,
    message_bytes: int,
    system: str = "dgx-h100",
    nodes: int = 1,
    gpus_per_node: int | None = None,
    algorithm: str = "auto",
    mode: str = "calibrated",
    scale_up_GBps: float | None = None,
    scale_out_GBps: float | None = None,
    alpha_us: float | None = None,
) -> CollectiveResult:
    """Cost of one collective on ``nodes`` x ``gpus_per_node`` GPUs of ``system`` (see the module docstring).

    Raises ``SimulationError`` naming the first bad parameter.
    """
    _check_message_bytes(message_bytes, "message_bytes")
    plan = _get_plan(op, system, nodes, gpus_per_node, algorithm, mode, scale_up_GBps, scale_out_GBps, alpha_us)
    return _evaluate(plan, message_bytes)


def sweep(
    op: str,
    min_bytes: int = 8,
    max_bytes: int = 8 * 2**30,
    system: str = "dgx-h100",
    nodes: int = 1,
    gpus_per_node: int | None = None,
    algorithm: str = "auto",
    mode: str = "calibrated",
    scale_up_GBps: float | None = None,
    scale_out_GBps: float | None = None,
    alpha_us: float | None = None,
) -> tuple[CollectiveResult, ...]:
    """``simulate_collective`` for every power of two from ``min_bytes`` to ``max_bytes`` inclusive.

    Like ``all_reduce_perf -b min -e max -f 2``: the sizes are min, 2*min, 4*min, ... up to max, so
    ``min_bytes``
    need not be a power of two. Both bounds must lie in [1, 2^40] and ``min_bytes <= max_bytes``.
    """
    _check_message_bytes(min_bytes, "min_bytes")
    _check_message_bytes(max_bytes, "max_bytes")
    if min_bytes > max_bytes:
        raise SimulationError(
            "min_bytes",
            f"min_bytes must not exceed max_bytes ({max_bytes})",
            code="out_of_range",
            allowed=f"{MIN_MESSAGE_BYTES}..{max_bytes}",
        )
    plan = _get_plan(op, system, nodes, gpus_per_node, algorithm, mode, scale_up_GBps, scale_out_GBps, alpha_us)
    return _sweep_plan(plan, min_bytes, max_bytes)


@lru_cache(maxsize=256)
def _sweep_plan(plan: _Plan, min_bytes: int, max_bytes: int) -> tuple[CollectiveResult, ...]:
    # Results are immutable and depend only on the plan and the sizes, so a repeated sweep (the lab page
    # redraws the same curves) is served from here; building ~200 frozen results costs about a millisecond.
    results = []
    size = min_bytes
    while size <= max_bytes:
        results.append(_evaluate(plan, size))
        size *= 2
    return tuple(results)


def busbw_factor(op: str, ranks: int) -> float:
    """nccl-tests' busbw / algbw factor: 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and
    all_to_all, 1 for broadcast, reduce and sendrecv (NVIDIA/nccl-tests doc/PERFORMANCE.md)."""
    if op == "all_reduce":
        return 2.0 * (ranks - 1) / ranks
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (ranks - 1) / ranks
    return 1.0


# --- evaluation
# -------------------------------------------------------------------------------------------------


def _bandwidth_time_s(term: _Term, message_bytes: int) -> tuple[float, str]:
    """Time the stage spends moving bytes, and the link that limits it at this size."""
    seconds_per_byte = 1.0 / term.bandwidth_Bps
    if term.half_bytes > 0.0:
        seconds_per_byte *= 1.0 + (term.half_bytes / message_bytes) ** term.ramp_exponent
    link = term.link
    if term.alt_bandwidth_Bps > 0.0:
        alt_seconds_per_byte = 1.0 / term.alt_bandwidth_Bps
        if term.alt_half_bytes > 0.0:
            alt_seconds_per_byte *= 1.0 + (term.alt_half_bytes / message_bytes) ** term.alt_ramp_exponent
        if alt_seconds_per_byte >= seconds_per_byte:
            seconds_per_byte, link = alt_seconds_per_byte, term.alt_link
    return term.traffic_factor * message_bytes * seconds_per_byte, link


def _evaluate(plan: _Plan, message_bytes: int) -> CollectiveResult:
    if not plan.variants:
        return CollectiveResult(
            op=plan.op,
            algorithm=plan.resolved_if_idle,
            mode=plan.mode,
            ranks=plan.ranks,
            message_bytes=message_bytes,
            time_s=0.0,
            algbw_GBps=0.0,
            busbw_GBps=0.0,
            bottleneck="none",
            phases=(),
            assumptions=plan.assumptions[plan.resolved_if_idle],
        )
    best = plan.variants[0]
    best_time_s = math.inf
    for variant in plan.variants:
        closed_form = variant.closed_form
        if closed_form is None:
            time_s = 0.0
            for term in variant.terms:
                time_s += term.latency_s + _bandwidth_time_s(term, message_bytes)[0]
        else:
            # Same arithmetic as _bandwidth_time_s, summed over the terms, without the per-term calls.
            latency_s, s_per_byte, half, exponent, alt_s_per_byte, alt_half, alt_exponent = closed_form
            if half > 0.0:
                s_per_byte *= 1.0 + (half / message_bytes) ** exponent
            if alt_s_per_byte > 0.0:
                if alt_half > 0.0:
                    alt_s_per_byte *= 1.0 + (alt_half / message_bytes) ** alt_exponent
                s_per_byte = max(s_per_byte, alt_s_per_byte)
            time_s = latency_s + s_per_byte * message_bytes
        if time_s < best_time_s:
            best, best_time_s = variant, time_s
    phases = []
    latency_s = 0.0
    slowest_link, slowest_bandwidth_s = "latency", -1.0
    for term in best.terms:
        bandwidth_s, link = _bandwidth_time_s(term, message_bytes)
        phases.append(Phase(term.phase, link, term.latency_s + bandwidth_s))
        latency_s += term.latency_s
        if bandwidth_s > slowest_bandwidth_s:
            slowest_link, slowest_bandwidth_s = link, bandwidth_s
    bottleneck = "latency" if latency_s > best_time_s - latency_s else slowest_link
    algbw_GBps = message_bytes / best_time_s / _GB
    # Positional: keyword arguments cost a third more on this path, which runs for every size of a sweep.
    return CollectiveResult(
        plan.op,
        best.algorithm,
        plan.mode,
        plan.ranks,
        message_bytes,
        best_time_s,
        algbw_GBps,
        algbw_GBps * plan.busbw_factor,
        bottleneck,
        tuple(phases),
        plan.assumptions[best.algorithm],
    )


# --- validation
# -------------------------------------------------------------------------------------------------


def _check_message_bytes(value: object, parameter: str) -> int:
    allowed = f"{MIN_MESSAGE_BYTES}..{MAX_MESSAGE_BYTES}"
    if not isinstance(value, int) or isinstance(value, bool):
        raise SimulationError(
            parameter, f"{parameter} must be a whole number of bytes", code="invalid_type", allowed=allowed
        )
    if not MIN_MESSAGE_BYTES <= value <= MAX_MESSAGE_BYTES:
        raise SimulationError(
            parameter,
            f"{parameter} must be between {MIN_MESSAGE_BYTES} and {MAX_MESSAGE_BYTES} (2^40) bytes",
            code="out_of_range",
            allowed=allowed,
        )
    return value


def _check_bandwidth(value: object, parameter: str) -> float:
    # The chained comparison is False for NaN, so NaN is rejected too.
    if (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and MIN_BANDWIDTH_OVERRIDE_GBPS <= value <= MAX_BANDWIDTH_OVERRIDE_GBPS
    ):
        return float(value)
    raise SimulationError(
        parameter,
        f"{parameter} must be a number of GB/s from {MIN_BANDWIDTH_OVERRIDE_GBPS:g} to {MAX_BANDWIDTH_OVERRIDE_GBPS:g}",
        code="out_of_range",
        allowed=f"{MIN_BANDWIDTH_OVERRIDE_GBPS:g}..{MAX_BANDWIDTH_OVERRIDE_GBPS:g}",
    )


def _check_alpha(value: object, parameter: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0.0 <= value <= MAX_ALPHA_US:
        return float(value)
    raise SimulationError(
        parameter,
        f"{parameter} must be a number of microseconds between 0 and {MAX_ALPHA_US:g}",
        code="out_of_range",
        allowed=f"[0, {MAX_ALPHA_US:g}]",
    )


def _check_choice(value: object, parameter: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(choices)
        raise SimulationError(
            parameter, f"{parameter} must be one of: {allowed}", code="unknown_value", allowed=allowed
        )
    return value


def _check_count(value: object, parameter: str, maximum: int, system_id: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= maximum:
        return value
    raise SimulationError(
        parameter,
        f"{parameter} must be between 1 and {maximum} for {system_id}",
        code="out_of_range",
        allowed=f"1..{maximum}",
    )


# --- planning
# ---------------------------------------------------------------------------------------------------


def _get_plan(
    op: str,
    system: str,
    nodes: int,
    gpus_per_node: int | None,
    algorithm: str,
    mode: str,
    scale_up_GBps: float | None,
    scale_out_GBps: float | None,
    alpha_us: float | None,
) -> _Plan:
    # A plan depends only on these arguments, never on the size, so it is built once per distinct query: a
    # sweep or a page of diagrams then costs little more than the arithmetic of each size.
    try:
        return _cached_plan(op, system, nodes, gpus_per_node, algorithm, mode, scale_up_GBps, scale_out_GBps, alpha_us)
    except TypeError:
        # An unhashable argument (a list, say) cannot be a cache key; validation names the bad parameter.
        return _build_plan(op, system, nodes, gpus_per_node, algorithm, mode, scale_up_GBps, scale_out_GBps, alpha_us)


@lru_cache(maxsize=4096, typed=True)
def _cached_plan(
    op: str,
    system: str,
    nodes: int,
    gpus_per_node: int | None,
    algorithm: str,
    mode: str,
    scale_up_GBps: float | None,
    scale_out_GBps: float | None,
    alpha_us: float | None,
) -> _Plan:
    return _build_plan(op, system, nodes, gpus_per_node, algorithm, mode, scale_up_GBps, scale_out_GBps, alpha_us)


@dataclass(frozen=True, slots=True)
class _Setting:
    """The validated inputs of a plan and the line rates they resolve to."""

    op: str
    system: System
    mode: str
    nodes: int
    gpus_per_node: int
    ranks: int
    scale_up_Bps: float
    scale_out_Bps: float
    alpha_s: float | None
    assumptions: tuple[str, ...]


def _build_plan(
    op: object,
    system: object,
    nodes: object,
    gpus_per_node: object,
    algorithm: object,
    mode: object,
    scale_up_GBps: object,
    scale_out_GBps: object,
    alpha_us: object,
) -> _Plan:
    op_id = _check_choice(op, "op", OPS)
    system_id = _check_choice(system, "system", tuple(SYSTEMS))
    preset = SYSTEMS[system_id]
    algorithm_id = _check_choice(algorithm, "algorithm", ALGORITHMS)
    mode_id = _check_choice(mode, "mode", MODES)
    node_count = _check_count(nodes, "nodes", preset.max_nodes, system_id)
    gpu_count = preset.gpus_per_node if gpus_per_node is None else gpus_per_node
    gpu_count = _check_count(gpu_count, "gpus_per_node", preset.gpus_per_node, system_id)
    up_GBps = preset.scale_up_GBps if scale_up_GBps is None else _check_bandwidth(scale_up_GBps, "scale_up_GBps")
    out_GBps = preset.scale_out_GBps if scale_out_GBps is None else _check_bandwidth(scale_out_GBps, "scale_out_GBps")
    alpha = None if alpha_us is None else _check_alpha(alpha_us, "alpha_us")

    candidates = _candidate_algorithms(op_id, algorithm_id, preset, node_count)
    setting = _Setting(
        op=op_id,
        system=preset,
        mode=mode_id,
        nodes=node_count,
        gpus_per_node=gpu_count,
        ranks=node_count * gpu_count,
        scale_up_Bps=up_GBps * _GB,
        scale_out_Bps=out_GBps * _GB,
        alpha_s=None if alpha is None else alpha * _US,
        assumptions=_common_assumptions(preset, mode_id, node_count, gpu_count, up_GBps, out_GBps, alpha),
    )
    variants: list[_Variant] = []
    assumptions: dict[str, tuple[str, ...]] = {}
    for candidate in candidates:
        if setting.ranks > 1:
            variants.extend(_variants(setting, candidate))
        assumptions[candidate] = setting.assumptions + _algorithm_assumptions(setting, candidate)
    return _Plan(
        op=op_id,
        mode=mode_id,
        ranks=setting.ranks,
        busbw_factor=busbw_factor(op_id, setting.ranks),
        resolved_if_idle=candidates[0],
        variants=tuple(variants),
        assumptions=assumptions,
    )


def _candidate_algorithms(op: str, algorithm: str, system: System, nodes: int) -> tuple[str, ...]:
    applicable = _APPLICABLE[op]
    if algorithm == "auto":
        return tuple(
            a
            for a in applicable
            if not (a == "nvls" and (not system.nvls or nodes > 1)) and not (a == "hierarchical" and nodes < 2)
        )
    if algorithm not in applicable:
        allowed = ", ".join(("auto", *applicable))
        raise SimulationError(
            "algorithm",
            f"algorithm {algorithm} does not apply to {op}; use one of: {allowed}",
            code="unsupported",
            allowed=allowed,
        )
    if algorithm == "nvls" and not system.nvls:
        raise SimulationError(
            "algorithm",
            f"algorithm nvls needs NVLink SHARP (in-switch reduction), which {system.id} does not have",
            code="unsupported",
            allowed=", ".join(a for a in ("auto", *applicable) if a != "nvls"),
        )
    if algorithm == "nvls" and nodes > 1:
        raise SimulationError(
            "algorithm",
            f"algorithm nvls reduces inside one NVLink domain, so nodes must be 1 for {system.id}",
            code="unsupported",
            allowed="nodes = 1",
        )
    if algorithm == "hierarchical" and nodes < 2:
        raise SimulationError(
            "algorithm",
            "algorithm hierarchical combines nodes, so nodes must be at least 2",
            code="unsupported",
            allowed="nodes >= 2",
        )
    return (algorithm,)


def _scale_up_link(setting: _Setting) -> str:
    return setting.system.scale_up


def _scale_out_link(setting: _Setting) -> str:
    return setting.system.scale_out


def _variants(setting: _Setting, algorithm: str) -> list[_Variant]:
    if setting.mode == "ideal":
        return [_variant(algorithm, "line rate", _ideal_terms(setting, algorithm))]
    if algorithm == "nvls":
        protocols: tuple[Protocol, ...] = ("Simple",)
    elif algorithm == "hierarchical":
        protocols = ("Simple",)
    elif algorithm == "direct":
        protocols = _DIRECT_PROTOCOLS
    else:
        protocols = _RING_PROTOCOLS
    return [_variant(algorithm, p, _calibrated_terms(setting, algorithm, p)) for p in protocols]


def _flat(setting: _Setting, up_Bps: float, out_Bps: float) -> tuple[float, str]:
    """Bandwidth of a flat ring or chain over all ranks, B = min(B_up, g * B_out), and its bottleneck link."""
    if setting.nodes == 1:
        return up_Bps, _scale_up_link(setting)
    network_Bps = setting.gpus_per_node * out_Bps
    if up_Bps < network_Bps:
        return up_Bps, _scale_up_link(setting)
    return network_Bps, _scale_out_link(setting)


def _ideal_terms(setting: _Setting, algorithm: str) -> tuple[_Term, ...]:
    op, n, g, nodes = setting.op, setting.ranks, setting.gpus_per_node, setting.nodes
    a = setting.alpha_s or 0.0
    up, out = setting.scale_up_Bps, setting.scale_out_Bps
    bandwidth, link = _flat(setting, up, out)
    if algorithm == "hierarchical":
        return (
            _Term("intra-node reduce-scatter", _scale_up_link(setting), (g - 1) * a, (g - 1) / g, up, 0.0, 1.0),
            _Term(
                "inter-node ring all-reduce",
                _scale_out_link(setting),
                2 * (nodes - 1) * a,
                2 * (nodes - 1) / nodes / g,
                out,
                0.0,
                1.0,
            ),
            _Term("intra-node all-gather", _scale_up_link(setting), (g - 1) * a, (g - 1) / g, up, 0.0, 1.0),
        )
    if algorithm == "nvls":
        half = (n + 1) / n / 2
        return (
            _Term("NVLS reduce-scatter (in-switch reduction)", link, a, half, up, 0.0, 1.0),
            _Term("NVLS all-gather (multicast)", link, 0.0, half, up, 0.0, 1.0),
        )
    if algorithm == "tree":
        steps = math.ceil(math.log2(n))
        return (
            _Term("tree reduce", link, steps * a, 1.0, bandwidth, 0.0, 1.0),
            _Term("tree broadcast", link, steps * a, 1.0, bandwidth, 0.0, 1.0),
        )
    if op == "sendrecv":
        sendrecv_link = _scale_up_link(setting) if nodes == 1 else _scale_out_link(setting)
        return (_Term("send/receive", sendrecv_link, a, 1.0, up if nodes == 1 else out, 0.0, 1.0),)
    if op == "all_to_all":
        a2a_link = _scale_up_link(setting) if nodes == 1 else _scale_out_link(setting)
        return (_Term("all-to-all", a2a_link, (n - 1) * a, (n - 1) / n, up if nodes == 1 else out, 0.0, 1.0),)
    if op == "all_reduce":
        return (
            _Term("ring reduce-scatter", link, (n - 1) * a, (n - 1) / n, bandwidth, 0.0, 1.0),
            _Term("ring all-gather", link, (n - 1) * a, (n - 1) / n, bandwidth, 0.0, 1.0),
        )
    if op in ("broadcast", "reduce"):
        return (_Term(f"pipelined chain {op}", link, (n - 1) * a, 1.0, bandwidth, 0.0, 1.0),)
    return (_Term(f"ring {op.replace('_', '-')}", link, (n - 1) * a, (n - 1) / n, bandwidth, 0.0, 1.0),)


def _step_latency_s(setting: _Setting, hardware: LatencyClass, algorithm: str, protocol: Protocol) -> float:
    if setting.alpha_s is not None:
        return setting.alpha_s
    return STEP_LATENCY_US[(hardware, algorithm, protocol)] * _US


def _calibrated_terms(setting: _Setting, algorithm: str, protocol: Protocol) -> tuple[_Term, ...]:
    op, n, g, nodes = setting.op, setting.ranks, setting.gpus_per_node, setting.nodes
    scale_up = SCALE_UP_CALIBRATIONS[setting.system.id]
    network = NETWORK_CALIBRATIONS[setting.system.scale_out]
    intra: LatencyClass = scale_up.latency_class
    family = "tree" if algorithm == "tree" else "nvls" if algorithm == "nvls" else "ring"
    base_s = BASE_LATENCY_US[(family, protocol)] * _US
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
    ) -> _Term:
        return _Term(
            phase,
            link,
            latency_s,
            traffic,
            bandwidth_Bps * protocol_fraction,
            fabric.ramp_half_time_us * _US * bandwidth_Bps,
            fabric.ramp_exponent,
        )

    def flat_term(phase: str, latency_s: float, traffic: float) -> _Term:
        # Inside a node only NVLink/PCIe counts; across nodes the node's rails are a second, separate limit.
        single = term(phase, up_link, latency_s, traffic, up_Bps, up_fabric)
        if nodes == 1:
            return single
        rails_Bps = g * out_Bps
        return replace(
            single,
            alt_link=out_link,
            alt_bandwidth_Bps=rails_Bps * protocol_fraction,
            alt_half_bytes=network.ramp_half_time_us * _US * rails_Bps,
            alt_ramp_exponent=network.ramp_exponent,
        )

    up_link, out_link = _scale_up_link(setting), _scale_out_link(setting)
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


# --- assumptions
# --------------------------------------------------------------------------------------------------


def _common_assumptions(
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
        f"Scale-out: {out_link.name}, {out_GBps:g} GB/s per GPU per direction, one NIC rail per GPU"
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
                "NVLink/PCI "
                f"inside a node, network between nodes), and the fastest of LL, LL128 and Simple is used "
                f"({NCCL_TUNING.title}, {NCCL_TUNING.url})."
            )
        else:
            sentences.append(
                f"Every step costs alpha = {alpha_us:g} us (overridden) on top of NCCL's per-collective base "
                f"latency ({NCCL_TUNING.url})."
            )
    return tuple(sentences)


def _fabric_sentence(what: str, fabric: FabricCalibration) -> str:
    return (
        f"{what} reaches {fabric.efficiency:.0%} of line rate: {fabric.evidence} ({fabric.source.title}, "
        f"{fabric.source.url}). Bandwidth ramps up with size as 1/(1 + (S_half/S)^{fabric.ramp_exponent:g}), "
        f"S_half = {fabric.ramp_half_time_us:g} us x achievable bandwidth (fitted to published curves)."
    )


def _algorithm_assumptions(setting: _Setting, algorithm: str) -> tuple[str, ...]:
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
        sentences.append(
            "Hierarchical: reduce-scatter inside each node, ring all-reduce of S/g between nodes on "
            "each rail, "
            "all-gather inside each node, one after the other (not pipelined)."
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
                    f"The {setting.system.scale_out} network", NETWORK_CALIBRATIONS[setting.system.scale_out]
                )
            )
    return tuple(sentences)
