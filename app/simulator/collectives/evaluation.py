"""Evaluating a plan at one message size: the fastest variant, its phases, the bottleneck, algbw and busbw.

Each term takes ``latency_s + traffic_factor * S * ramp(S) / bandwidth_Bps + fill`` (``terms.Term``); a variant's time
is the sum of its terms, and the fastest variant wins (the first on a tie). The bottleneck is "latency" when the
latencies outweigh the bandwidth time, otherwise the link of the slowest bandwidth term.

One rank (n = 1) has no peer: nothing crosses a link, so time, algbw and busbw are all 0, the bottleneck is
"none" and there are no phases (nccl-tests also prints a busbw of 0 for all_reduce on one rank).
"""

import math

from app.simulator.accuracy import expected_error_percent
from app.simulator.collectives.planning import Plan
from app.simulator.collectives.results import CollectiveResult, Phase
from app.simulator.collectives.terms import GB, Term


def bandwidth_time_s(term: Term, message_bytes: int) -> tuple[float, str]:
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
    seconds = term.traffic_factor * message_bytes * seconds_per_byte
    if term.fill_s > 0.0:
        seconds += term.fill_s * min(1.0, message_bytes / term.fill_bytes)
    return seconds, link


def evaluate(plan: Plan, message_bytes: int) -> CollectiveResult:
    """The result of ``plan`` at ``message_bytes`` (already validated), as described in the module docstring."""
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
                time_s += term.latency_s + bandwidth_time_s(term, message_bytes)[0]
        else:
            # Same arithmetic as bandwidth_time_s, summed over the terms, without the per-term calls.
            latency_s, s_per_byte, half, exponent, alt_s_per_byte, alt_half, alt_exponent, fill_s, fill_bytes = (
                closed_form
            )
            if half > 0.0:
                s_per_byte *= 1.0 + (half / message_bytes) ** exponent
            if alt_s_per_byte > 0.0:
                if alt_half > 0.0:
                    alt_s_per_byte *= 1.0 + (alt_half / message_bytes) ** alt_exponent
                s_per_byte = max(s_per_byte, alt_s_per_byte)
            time_s = latency_s + s_per_byte * message_bytes
            if fill_s > 0.0:
                time_s += fill_s * min(1.0, message_bytes / fill_bytes)
        if time_s < best_time_s:
            best, best_time_s = variant, time_s
    phases = []
    latency_s = 0.0
    slowest_link, slowest_bandwidth_s = "latency", -1.0
    for term in best.terms:
        bandwidth_s, link = bandwidth_time_s(term, message_bytes)
        phases.append(Phase(term.phase, link, term.latency_s + bandwidth_s))
        latency_s += term.latency_s
        if bandwidth_s > slowest_bandwidth_s:
            slowest_link, slowest_bandwidth_s = link, bandwidth_s
    bottleneck = "latency" if latency_s > best_time_s - latency_s else slowest_link
    algbw_GBps = message_bytes / best_time_s / GB
    error_percent = 0.0
    if plan.accuracy_key is not None:
        system, nodes, gpus_per_node, overridden = plan.accuracy_key
        error_percent = expected_error_percent(
            system, nodes, gpus_per_node, plan.op, best.algorithm, message_bytes, overridden
        )
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
        error_percent,
    )
