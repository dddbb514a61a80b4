"""Simulator speed, and the calibrated mode's residuals against the published sweeps.

Run: ``python benchmarks/simulator.py``. Prints figures; asserts nothing. With ``--error-table`` it prints the
generated tables of ``app/simulator/accuracy.py`` instead (paste them between its GENERATED markers).

Speed: a full 8 B .. 8 GiB sweep of every operation on dgx-h100, calibrated, in process.

"cold" clears the caches first, so it includes validation, building every plan and evaluating every size (what
the first request for a new query pays); "plans cached" keeps the size-independent plans but evaluates every size
again; "warm" is a repeated sweep, served from the sweep cache (what a redrawn diagram pays).
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.simulator import OPS, sweep
from app.simulator.collectives import _cached_plan, _sweep_plan
from app.simulator.published import SWEEPS
from app.simulator.residuals import TARGET_FACTOR, render_tables, residuals

REPEATS = 200


def full_sweep() -> int:
    return sum(len(sweep(op, 8, 8 * 2**30, system="dgx-h100", mode="calibrated")) for op in OPS)


def measure(clear_plans: bool, clear_sweeps: bool) -> list[float]:
    timings_ms = []
    for _ in range(REPEATS):
        if clear_plans:
            _cached_plan.cache_clear()
        if clear_sweeps:
            _sweep_plan.cache_clear()
        start = time.perf_counter()
        full_sweep()
        timings_ms.append((time.perf_counter() - start) * 1e3)
    return timings_ms


def residual_table() -> None:
    """Per reference and regime: rows, the worst row (model time / measured time) and whether it meets its target."""
    print(f"{'reference':44} {'regime':8} {'rows':>4} {'worst size':>12} {'time x':>7} {'target':>6}  verdict")
    for published in SWEEPS:
        rows = residuals(published)
        misses = dict(published.known_misses)
        for regime in ("latency", "ramp", "plateau"):
            mine = [row for row in rows if row.regime == regime]
            if not mine:
                continue
            worst = max(mine, key=lambda row: row.factor)
            verdict = "ok" if all(row.within_target for row in mine) else "MISS"
            if regime in misses and verdict == "MISS":
                verdict = "known miss: " + misses[regime]
            print(
                f"{published.id:44} {regime:8} {len(mine):>4} {worst.message_bytes:>12} "
                f"{worst.time_ratio:>7.2f} {'x' + format(TARGET_FACTOR[regime], 'g'):>6}  {verdict}"
            )
    print()


def main() -> None:
    if "--error-table" in sys.argv:
        print(render_tables())
        return
    residual_table()
    results = full_sweep()
    print(f"full sweep: {len(OPS)} ops x 31 sizes (8 B .. 8 GiB) = {results} results, dgx-h100, calibrated")
    for label, clear_plans, clear_sweeps in (
        ("cold (nothing cached)", True, True),
        ("plans cached", False, True),
        ("warm (sweeps cached)", False, False),
    ):
        timings_ms = measure(clear_plans, clear_sweeps)
        print(
            f"{label:22} mean {statistics.mean(timings_ms):.3f} ms  median {statistics.median(timings_ms):.3f} ms"
            f"  min {min(timings_ms):.3f} ms  over {REPEATS} repeats"
        )


if __name__ == "__main__":
    main()
