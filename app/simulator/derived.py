"""Quantities derived from the alpha-beta model and from nccl-tests' definitions, one step beyond a single call.

The course teaches each of these in a chapter: reading a printed nccl-tests line (busbw = S / t × factor), the
size at which a ring's latency and bandwidth terms are equal (S* = n·α·B), how many ranks a ring can grow to
before latency dominates, what a budget of time buys, a node's rails together. The exam asks them so that
copying a prompt's numbers into one simulator call does not answer it: each needs a step the chapters teach.

Every function is pure and uses the ideal model's definitions (DESIGN §4): B is a per-GPU, per-direction line
rate in GB/s (10^9 bytes per second), α a per-step latency, S the nccl-tests "size" in bytes.
"""

from __future__ import annotations

import math

from app.simulator.collectives.results import busbw_factor
from app.simulator.errors import SimulationError

US = 1e-6
GB = 1e9
BUSBW_OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce", "sendrecv")


def _positive(value: float, name: str) -> float:
    if not (math.isfinite(value) and value > 0):
        raise SimulationError(name, f"{name} must be above 0", code="out_of_range", allowed="> 0")
    return value


def _ranks(ranks: int) -> int:
    if not 2 <= ranks <= 1_000_000:
        raise SimulationError("ranks", "ranks must be between 2 and 1000000", code="out_of_range", allowed="2..1000000")
    return ranks


def _op(op: str) -> str:
    if op not in BUSBW_OPS:
        raise SimulationError("op", f"unknown op '{op}'", code="unknown_value", allowed=", ".join(BUSBW_OPS))
    return op


def busbw_from_time_Bps(op: str, message_bytes: int, time_us: float, ranks: int) -> float:
    """The busbw nccl-tests prints next to a measured time: ``S / t × factor(op, n)``."""
    seconds = _positive(time_us, "time_us") * US
    return _positive(message_bytes, "message_bytes") / seconds * busbw_factor(_op(op), _ranks(ranks))


def time_from_busbw_s(op: str, message_bytes: int, busbw_GBps: float, ranks: int) -> float:
    """The time behind a printed busbw: ``t = S × factor(op, n) / busbw`` (time = size / algbw, never / busbw)."""
    factor = busbw_factor(_op(op), _ranks(ranks))
    return _positive(message_bytes, "message_bytes") * factor / (_positive(busbw_GBps, "busbw_GBps") * GB)


def algbw_from_busbw_Bps(op: str, busbw_GBps: float, ranks: int) -> float:
    """``algbw = busbw / factor(op, n)``."""
    return _positive(busbw_GBps, "busbw_GBps") * GB / busbw_factor(_op(op), _ranks(ranks))


def ring_crossover_bytes(ranks: int, alpha_us: float, bandwidth_GBps: float) -> float:
    """The buffer at which a ring all-reduce's latency term 2(n−1)α equals its bandwidth term 2(n−1)/n · S/B:
    ``S* = n · α · B``. Below it the ring is latency-bound."""
    return _ranks(ranks) * _positive(alpha_us, "alpha_us") * US * _positive(bandwidth_GBps, "bandwidth_GBps") * GB


def ring_bandwidth_bound_ranks(message_bytes: int, alpha_us: float, bandwidth_GBps: float) -> int:
    """The most ranks a ring all-reduce of S can have and stay bandwidth-bound (S ≥ S* = n·α·B):
    ``floor(S / (α · B))``."""
    per_rank_bytes = _positive(alpha_us, "alpha_us") * US * _positive(bandwidth_GBps, "bandwidth_GBps") * GB
    return math.floor(_positive(message_bytes, "message_bytes") / per_rank_bytes * (1 + 1e-12))


def ring_budget_bytes(ranks: int, alpha_us: float, bandwidth_GBps: float, budget_us: float) -> float:
    """The largest buffer a ring all-reduce over n ranks finishes within a time budget T:
    ``S = (T − 2(n−1)α) · n · B / (2(n−1))``; 0 when the latency alone exceeds the budget."""
    n = _ranks(ranks)
    latency_s = 2 * (n - 1) * _positive(alpha_us, "alpha_us") * US
    left_s = _positive(budget_us, "budget_us") * US - latency_s
    return max(0.0, left_s) * n * _positive(bandwidth_GBps, "bandwidth_GBps") * GB / (2 * (n - 1))


def data_in_time_bytes(bandwidth_GBps: float, time_ms: float) -> float:
    """What one direction of a link carries in a given time at line rate: ``B · t``."""
    return _positive(bandwidth_GBps, "bandwidth_GBps") * GB * _positive(time_ms, "time_ms") * 1e-3


def node_transfer_time_s(message_bytes: int, nics: int, nic_GBps: float) -> float:
    """A buffer leaving a node split evenly over all its NICs, one rail per GPU: ``S / (nics · B_nic)``."""
    if nics < 1:
        raise SimulationError("nics", "a node needs at least one NIC", code="out_of_range", allowed=">= 1")
    return _positive(message_bytes, "message_bytes") / (nics * _positive(nic_GBps, "nic_GBps") * GB)


def nccl_size_bytes(op: str, shard_bytes: int, ranks: int) -> int:
    """The size to pass to all_gather_perf or reduce_scatter_perf for a given per-rank shard: nccl-tests counts
    the whole gathered output (all_gather) or the whole input (reduce_scatter), ``n × shard``."""
    if op not in ("all_gather", "reduce_scatter"):
        raise SimulationError(
            "op", "the size is n × shard only for all_gather and reduce_scatter", code="unsupported", allowed=""
        )
    return _ranks(ranks) * int(_positive(shard_bytes, "shard_bytes"))
