"""Simulator speed, and the calibrated mode's residuals against the published sweeps.

Run: ``python benchmarks/simulator.py``. Prints figures; asserts nothing. With ``--error-table`` it prints the
generated tables of ``app/simulator/accuracy.py`` instead (paste them between its GENERATED markers); with
``--pending`` it prints the residuals of the sweeps stored under ``tests/data/nccl_sweeps/pending`` (published,
not yet met by the model, so not in the test suite) instead.

Speed: a full 8 B .. 8 GiB sweep of every operation on dgx-h100, calibrated, in process.

"cold" clears the caches first, so it includes validation, building every plan and evaluating every size (what
the first request for a new query pays); "plans cached" keeps the size-independent plans but evaluates every size
again; "warm" is a repeated sweep, served from the sweep cache (what a redrawn diagram pays).
"""

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.simulator import OPS, CollectiveQuery, sweep
from app.simulator.collectives import _cached_plan, _sweep_plan
from app.simulator.published import SWEEPS, PublishedSweep
from app.simulator.residuals import TARGET_FACTOR, render_tables, residuals

REPEATS = 200
PENDING = Path(__file__).resolve().parent.parent / "tests" / "data" / "nccl_sweeps" / "pending"


def full_sweep() -> int:
    return sum(len(sweep(CollectiveQuery(op, system="dgx-h100", mode="calibrated"), 8, 8 * 2**30)) for op in OPS)


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


def pending_sweeps() -> tuple[PublishedSweep, ...]:
    """The records of ``tests/data/nccl_sweeps/pending`` as the simulator's sweeps (times where printed)."""
    sweeps = []
    for path in sorted(PENDING.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        model = record["model"]
        sweeps.append(
            PublishedSweep(
                id=record["id"],
                title=record["title"],
                url=record["url"],
                date=record["date"],
                op=record["op"],
                system=model["system"],
                nodes=model["nodes"],
                gpus_per_node=model["gpus_per_node"],
                algorithm=model["algorithm"],
                hardware=record["hardware"],
                rows=tuple((row["message_bytes"], row["busbw_GBps"]) for row in record["rows"]),
                known_misses=tuple(record["known_misses"].items()),
                times_us=tuple(row["time_us"] for row in record["rows"] if "time_us" in row),
            )
        )
    return tuple(sweeps)


def residual_table(sweeps: tuple[PublishedSweep, ...] = SWEEPS) -> None:
    """Per reference and regime: rows, the worst row (model time / measured time) and whether it meets its target."""
    print(f"{'reference':44} {'regime':8} {'rows':>4} {'worst size':>12} {'time x':>7} {'target':>6}  verdict")
    for published in sweeps:
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
    if "--pending" in sys.argv:
        residual_table(pending_sweeps())
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
