"""Data-parallel training: does the gradient all-reduce hide behind compute, or does it stall the step?"""

import math
from dataclasses import dataclass

from app.simulator.collectives import MAX_MESSAGE_BYTES, CollectiveQuery, CollectiveResult, simulate_collective
from app.simulator.errors import SimulationError

MAX_COMPUTE_TIME_S = 1e6
_GRADIENT_WIDTHS_BYTES = (1, 2, 4, 8)


@dataclass(frozen=True, slots=True)
class TrainingStep:
    """One step: ``communication_fraction = allreduce_time_s / (allreduce_time_s + compute_time_s)``, i.e. the
    share of a step spent communicating if nothing overlaps; ``exposed`` when the all-reduce alone
    takes longer
    than the compute it could hide behind (``allreduce_time_s > compute_time_s``)."""

    gradient_bytes: int
    allreduce_time_s: float
    compute_time_s: float
    communication_fraction: float
    exposed: bool
    result: CollectiveResult


def training_step(
    parameters: int,
    system: str,
    nodes: int,
    compute_time_s: float,
    bytes_per_gradient: int = 2,
    mode: str = "calibrated",
    algorithm: str = "auto",
    gpus_per_node: int | None = None,
) -> TrainingStep:
    """All-reduce of ``parameters * bytes_per_gradient`` bytes (bf16 gradients by default) against a
    step's compute.

    Raises ``SimulationError`` for a bad parameter count, gradient width or compute time, and whatever
    ``simulate_collective`` raises for the rest.
    """
    if not isinstance(bytes_per_gradient, int) or bytes_per_gradient not in _GRADIENT_WIDTHS_BYTES:
        allowed = ", ".join(str(width) for width in _GRADIENT_WIDTHS_BYTES)
        raise SimulationError(
            "bytes_per_gradient",
            f"bytes_per_gradient must be one of: {allowed}",
            code="unknown_value",
            allowed=allowed,
        )
    max_parameters = MAX_MESSAGE_BYTES // bytes_per_gradient
    if isinstance(parameters, bool) or not isinstance(parameters, int) or not 1 <= parameters <= max_parameters:
        raise SimulationError(
            "parameters",
            f"parameters must be between 1 and {max_parameters} with {bytes_per_gradient}-byte gradients",
            code="out_of_range",
            allowed=f"1..{max_parameters}",
        )
    if (
        isinstance(compute_time_s, bool)
        or not isinstance(compute_time_s, int | float)
        or not math.isfinite(compute_time_s)
        or not 0.0 < compute_time_s <= MAX_COMPUTE_TIME_S
    ):
        raise SimulationError(
            "compute_time_s",
            f"compute_time_s must be above 0 and at most {MAX_COMPUTE_TIME_S:g} seconds",
            code="out_of_range",
            allowed=f"(0, {MAX_COMPUTE_TIME_S:g}]",
        )
    gradient_bytes = parameters * bytes_per_gradient
    result = simulate_collective(
        CollectiveQuery(
            "all_reduce", system=system, nodes=nodes, gpus_per_node=gpus_per_node, algorithm=algorithm, mode=mode
        ),
        gradient_bytes,
    )
    compute_s = float(compute_time_s)
    return TrainingStep(
        gradient_bytes=gradient_bytes,
        allreduce_time_s=result.time_s,
        compute_time_s=compute_s,
        communication_fraction=result.time_s / (result.time_s + compute_s),
        exposed=result.time_s > compute_s,
        result=result,
    )
