"""How far the calibrated mode is from published sweeps, row by row, and the targets it is held to.

A row's residual is the ratio of modelled to measured time at the same size: the printed times where the source
prints them, else the ratio of measured to modelled busbw (time = size / algbw, algbw = busbw / factor). Above 1
the model is slower than the measurement, below 1 faster. Regimes by size (the nccl-tests "size"):

    latency   S <= 64 KiB            target: within x1.5 either way
    ramp      64 KiB < S < 256 MiB   target: within x1.3
    plateau   S >= 256 MiB           target: within 10 %

A sweep's ``known_misses`` names a regime where no model with NCCL's published constants can meet the target
(its caveats in ``tests/data/nccl_sweeps`` say why); those rows are reported, never fitted away.
"""

import math
from typing import NamedTuple

from app.simulator.accuracy import PLATEAU_MIN_BYTES, UNVALIDATED_FLOOR_PERCENT, ValidatedKey, regime_of
from app.simulator.calibration import Regime
from app.simulator.collectives import CollectiveQuery, simulate_collective
from app.simulator.published import SWEEPS, PublishedSweep

# The largest factor either way a regime's rows may be off (plateau: 10 %).
TARGET_FACTOR: dict[Regime, float] = {"latency": 1.5, "ramp": 1.3, "plateau": 1.1}


class Residual(NamedTuple):
    """One published row beside the model."""

    sweep_id: str
    key: ValidatedKey
    message_bytes: int
    regime: Regime
    measured_busbw_GBps: float
    model_busbw_GBps: float
    algorithm: str  # what the model ran (auto resolves to one)
    measured_time_s: float | None = None  # where the source printed it
    model_time_s: float = 0.0

    @property
    def time_ratio(self) -> float:
        """Modelled time / measured time."""
        if self.measured_time_s is not None:
            return self.model_time_s / self.measured_time_s
        return self.measured_busbw_GBps / self.model_busbw_GBps

    @property
    def factor(self) -> float:
        """How many times off, either way (>= 1)."""
        return max(self.time_ratio, 1.0 / self.time_ratio)

    @property
    def error_percent(self) -> float:
        """(factor - 1) in percent: 10 means 10 % off in either direction."""
        return (self.factor - 1.0) * 100.0

    @property
    def within_target(self) -> bool:
        # A small slack for the 2-decimal rounding of printed busbw and of the target itself.
        return self.factor <= TARGET_FACTOR[self.regime] + 1e-9


def residuals(sweep: PublishedSweep) -> tuple[Residual, ...]:
    """Every row of ``sweep`` beside the calibrated model run the way the sweep ran."""
    rows = []
    times_s: list[float | None] = [time_us * 1e-6 for time_us in sweep.times_us] or [None] * len(sweep.rows)
    for (message_bytes, busbw_GBps), measured_time_s in zip(sweep.rows, times_s, strict=True):
        result = simulate_collective(
            CollectiveQuery(
                sweep.op,
                system=sweep.system,
                nodes=sweep.nodes,
                gpus_per_node=sweep.gpus_per_node,
                algorithm=sweep.algorithm,
                mode="calibrated",
                scale_out_GBps=sweep.scale_out_GBps,
            ),
            message_bytes,
        )
        regime = regime_of(message_bytes)
        key = (sweep.system, sweep.nodes, sweep.gpus_per_node, sweep.op, result.algorithm, regime)
        rows.append(
            Residual(
                sweep.id,
                key,
                message_bytes,
                regime,
                busbw_GBps,
                result.busbw_GBps,
                result.algorithm,
                measured_time_s,
                result.time_s,
            )
        )
    return tuple(rows)


def error_table() -> dict[ValidatedKey, tuple[float, int, int]]:
    """``accuracy.VALIDATED_ERROR_PERCENT`` as the residuals give it: per key, the worst error rounded up to a
    whole percent and the sizes covered. Sweeps with a bandwidth override are left out (they validate the
    override, not the preset)."""
    table: dict[ValidatedKey, tuple[float, int, int]] = {}
    for sweep in SWEEPS:
        if sweep.scale_out_GBps is not None:
            continue
        for row in residuals(sweep):
            error = float(math.ceil(row.error_percent - 1e-9))
            # A plateau figure holds for the whole plateau up to the size measured (a maintainer's "peak").
            low = PLATEAU_MIN_BYTES if row.regime == "plateau" else row.message_bytes
            old = table.get(row.key)
            if old is None:
                table[row.key] = (error, low, row.message_bytes)
            else:
                table[row.key] = (max(old[0], error), min(old[1], low), max(old[2], row.message_bytes))
    return table


def unvalidated_table() -> dict[Regime, float]:
    """``accuracy.UNVALIDATED_ERROR_PERCENT``: per regime, the worst residual of any reference (rows the model
    cannot reach with NCCL's published constants, ``known_misses``, left out: they measure the harness), never
    below ``accuracy.UNVALIDATED_FLOOR_PERCENT``."""
    worst: dict[Regime, float] = dict(UNVALIDATED_FLOOR_PERCENT)
    for sweep in SWEEPS:
        misses = dict(sweep.known_misses)
        for row in residuals(sweep):
            if row.regime not in misses:
                worst[row.regime] = max(worst[row.regime], float(math.ceil(row.error_percent - 1e-9)))
    return worst


def render_tables() -> str:
    """The two tables as Python source for ``accuracy.py``."""
    lines = ["VALIDATED_ERROR_PERCENT: Mapping[ValidatedKey, tuple[float, int, int]] = MappingProxyType(", "    {"]
    for key, value in sorted(error_table().items()):
        lines.append(f"        {key!r}: {value!r},")
    lines += ["    }", ")", "UNVALIDATED_ERROR_PERCENT: Mapping[Regime, float] = MappingProxyType("]
    lines.append(f"    {unvalidated_table()!r}")
    lines.append(")")
    return "\n".join(lines)
