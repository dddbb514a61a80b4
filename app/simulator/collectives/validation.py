"""What the collective simulator accepts, and the ``SimulationError`` that names the first parameter outside it.

Every check returns the value it accepted (as the type the model computes with) or raises; the error carries
the API parameter name, an English message, a machine-usable code and the allowed values, so the web layer can
translate it or map it to an HTTP status.
"""

from app.simulator.errors import SimulationError
from app.simulator.systems import System

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


def check_message_bytes(value: object, parameter: str) -> int:
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


def check_size_range(min_bytes: int, max_bytes: int) -> None:
    """A sweep's bounds, each already a valid message size, must not be reversed."""
    if min_bytes > max_bytes:
        raise SimulationError(
            "min_bytes",
            f"min_bytes must not exceed max_bytes ({max_bytes})",
            code="out_of_range",
            allowed=f"{MIN_MESSAGE_BYTES}..{max_bytes}",
        )


def check_bandwidth(value: object, parameter: str) -> float:
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


def check_alpha(value: object, parameter: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0.0 <= value <= MAX_ALPHA_US:
        return float(value)
    raise SimulationError(
        parameter,
        f"{parameter} must be a number of microseconds between 0 and {MAX_ALPHA_US:g}",
        code="out_of_range",
        allowed=f"[0, {MAX_ALPHA_US:g}]",
    )


def check_choice(value: object, parameter: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(choices)
        raise SimulationError(
            parameter, f"{parameter} must be one of: {allowed}", code="unknown_value", allowed=allowed
        )
    return value


def check_count(value: object, parameter: str, maximum: int, system_id: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= maximum:
        return value
    raise SimulationError(
        parameter,
        f"{parameter} must be between 1 and {maximum} for {system_id}",
        code="out_of_range",
        allowed=f"1..{maximum}",
    )


def check_algorithm(op: str, algorithm: str, applicable: tuple[str, ...], system: System, nodes: int) -> None:
    """An explicitly requested algorithm must model ``op`` (one of ``applicable``) and fit the system.

    NVLS needs NVLink SHARP and a single NVLink domain (one node); hierarchical needs at least two nodes.
    """
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
