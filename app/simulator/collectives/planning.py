"""Planning a query: everything that does not depend on the message size, computed once per distinct query.

A plan checks the parameters (the first bad one raises, in the order op, system, algorithm, mode, nodes,
gpus_per_node, scale_up_GBps, scale_out_GBps, alpha_us, then whether an explicit algorithm fits), resolves
n = nodes x gpus_per_node ranks and the line rates, chooses the candidate algorithms and builds, for each, the
variants that ``evaluation`` races at every size (ideal: one at line rate; calibrated: one per NCCL protocol)
and its assumptions. One rank runs nothing, so its plan has no variants.

``auto`` keeps every algorithm that models the operation and fits the system, in the order ``APPLICABLE`` gives
(the order that wins a tie): NVLS only inside one NVLink domain of a system with NVLink SHARP, hierarchical only
across at least two nodes.
"""

from dataclasses import dataclass
from functools import lru_cache

from app.simulator.collectives.assumptions import algorithm_assumptions, common_assumptions
from app.simulator.collectives.calibrated import calibrated_variants
from app.simulator.collectives.ideal import ideal_variants
from app.simulator.collectives.query import CollectiveQuery, cache_key
from app.simulator.collectives.results import busbw_factor
from app.simulator.collectives.terms import GB, US, Setting, Variant
from app.simulator.collectives.validation import (
    ALGORITHMS,
    MODES,
    OPS,
    check_algorithm,
    check_alpha,
    check_bandwidth,
    check_choice,
    check_count,
)
from app.simulator.systems import SYSTEMS, System

# Which algorithms model each operation, in the order "auto" prefers them on a tie.
APPLICABLE: dict[str, tuple[str, ...]] = {
    "all_reduce": ("ring", "tree", "nvls", "hierarchical"),
    "all_gather": ("ring",),
    "reduce_scatter": ("ring",),
    "broadcast": ("ring",),
    "reduce": ("ring",),
    "all_to_all": ("direct",),
    "sendrecv": ("direct",),
}


@dataclass(frozen=True, slots=True, eq=False)  # identity hash: a plan is a cache key for its sweeps
class Plan:
    """Everything about a query that does not depend on the message size, computed once per distinct query."""

    op: str
    mode: str
    ranks: int
    busbw_factor: float
    resolved_if_idle: str
    variants: tuple[Variant, ...]
    assumptions: dict[str, tuple[str, ...]]
    # What ``accuracy.expected_error_percent`` needs besides the size and the algorithm; None in ideal mode.
    accuracy_key: tuple[str, int, int, bool] | None = None


def get_plan(query: CollectiveQuery) -> Plan:
    # A plan depends only on the query, never on the size, so it is built once per distinct query: a sweep or a
    # page of diagrams then costs little more than the arithmetic of each size.
    try:
        return cached_plan(cache_key(query))
    except TypeError:
        # An unhashable field (a list, say) cannot be a cache key; validation names the bad parameter.
        return _build_plan(query)


@lru_cache(maxsize=4096)
def cached_plan(key: tuple[object, ...]) -> Plan:
    query = key[0]
    assert isinstance(query, CollectiveQuery)
    return _build_plan(query)


def _build_plan(query: CollectiveQuery) -> Plan:
    op_id = check_choice(query.op, "op", OPS)
    system_id = check_choice(query.system, "system", tuple(SYSTEMS))
    preset = SYSTEMS[system_id]
    algorithm_id = check_choice(query.algorithm, "algorithm", ALGORITHMS)
    mode_id = check_choice(query.mode, "mode", MODES)
    node_count = check_count(query.nodes, "nodes", preset.max_nodes, system_id)
    gpu_count = preset.gpus_per_node if query.gpus_per_node is None else query.gpus_per_node
    gpu_count = check_count(gpu_count, "gpus_per_node", preset.gpus_per_node, system_id)
    up_GBps = preset.scale_up_GBps
    if query.scale_up_GBps is not None:
        up_GBps = check_bandwidth(query.scale_up_GBps, "scale_up_GBps")
    out_GBps = preset.scale_out_GBps
    if query.scale_out_GBps is not None:
        out_GBps = check_bandwidth(query.scale_out_GBps, "scale_out_GBps")
    alpha = None if query.alpha_us is None else check_alpha(query.alpha_us, "alpha_us")

    candidates = _candidate_algorithms(op_id, algorithm_id, preset, node_count)
    setting = Setting(
        op=op_id,
        system=preset,
        mode=mode_id,
        nodes=node_count,
        gpus_per_node=gpu_count,
        ranks=node_count * gpu_count,
        scale_up_Bps=up_GBps * GB,
        scale_out_Bps=out_GBps * GB,
        alpha_s=None if alpha is None else alpha * US,
        assumptions=common_assumptions(preset, mode_id, node_count, gpu_count, up_GBps, out_GBps, alpha),
    )
    variants: list[Variant] = []
    assumptions: dict[str, tuple[str, ...]] = {}
    for candidate in candidates:
        if setting.ranks > 1:
            variants.extend(_variants(setting, candidate))
        assumptions[candidate] = setting.assumptions + algorithm_assumptions(setting, candidate)
    return Plan(
        op=op_id,
        mode=mode_id,
        ranks=setting.ranks,
        busbw_factor=busbw_factor(op_id, setting.ranks),
        resolved_if_idle=candidates[0],
        variants=tuple(variants),
        assumptions=assumptions,
        accuracy_key=(
            None
            if mode_id == "ideal"
            else (
                system_id,
                node_count,
                gpu_count,
                query.scale_up_GBps is not None or query.scale_out_GBps is not None or query.alpha_us is not None,
            )
        ),
    )


def _candidate_algorithms(op: str, algorithm: str, system: System, nodes: int) -> tuple[str, ...]:
    applicable = APPLICABLE[op]
    if algorithm == "auto":
        return tuple(
            a
            for a in applicable
            if not (a == "nvls" and (not system.nvls or nodes > 1)) and not (a == "hierarchical" and nodes < 2)
        )
    check_algorithm(op, algorithm, applicable, system, nodes)
    return (algorithm,)


def _variants(setting: Setting, algorithm: str) -> list[Variant]:
    if setting.mode == "ideal":
        return ideal_variants(setting, algorithm)
    return calibrated_variants(setting, algorithm)
