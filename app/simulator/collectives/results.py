"""What a collective costs, in the terms nccl-tests prints: time, algbw, busbw, the bottleneck and the phases.

algbw = S / time and busbw = algbw * factor, with the nccl-tests factor of the operation whatever the
algorithm: all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n; broadcast, reduce, sendrecv 1
(NVIDIA/nccl-tests doc/PERFORMANCE.md). GB/s are 10^9 bytes per second.
"""

from typing import Any, NamedTuple


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
    # The calibrated mode's expected error for this size regime, in percent either way, from its residuals
    # against published sweeps (``accuracy``); 0 in ideal mode, whose formulas are exact by definition.
    error_percent: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The ``/api/v1/simulate/collective`` response (DESIGN §4)."""
        return self._asdict() | {
            "phases": [phase._asdict() for phase in self.phases],
            "assumptions": list(self.assumptions),
        }


def busbw_factor(op: str, ranks: int) -> float:
    """nccl-tests' busbw / algbw factor: 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and
    all_to_all, 1 for broadcast, reduce and sendrecv (NVIDIA/nccl-tests doc/PERFORMANCE.md)."""
    if op == "all_reduce":
        return 2.0 * (ranks - 1) / ranks
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (ranks - 1) / ranks
    return 1.0
