"""busbw-sweep: what nccl-tests would print (algbw and busbw) for every power-of-two size, for up to three
system x algorithm series, with the latency-bound and bandwidth-bound sizes marked.

A size is latency-bound when the simulator reports the per-step latency (the alpha term) as the larger part of
the time ("bottleneck": "latency"), bandwidth-bound when the size/bandwidth term is. The crossover drawn for
each series lies between the last latency-bound size and the first bandwidth-bound one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.simulator import ALGORITHMS, MAX_MESSAGE_BYTES, MODES, OPS, SYSTEMS, CollectiveResult, SimulationError, sweep
from app.web.diagrams import fields
from app.web.diagrams.svg import LinearScale, LogScale, Tick, nice_max, points, px
from app.web.diagrams.units import GiB, binary_size, format_GBps, format_seconds, significant

ID = "busbw-sweep"
SERIES = 3
METRICS = ("busbw", "algbw", "both")
NONE = "none"
SIZE_CHOICES = tuple(2**e for e in range(41))
MAX_NODES = max(system.max_nodes for system in SYSTEMS.values())
DEFAULTS: dict[str, str] = {
    "op": "all_reduce",
    "mode": "calibrated",
    "min_bytes": "8",
    "max_bytes": str(8 * GiB),
    "metric": "both",
    "system1": "dgx-h100",
    "algorithm1": "auto",
    "nodes1": "1",
    "system2": "dgx-h100",
    "algorithm2": "auto",
    "nodes2": "4",
    "system3": "pcie-gen5-8gpu",
    "algorithm3": "auto",
    "nodes3": "1",
}

WIDTH, HEIGHT = 720, 390
LEFT, RIGHT, TOP, BOTTOM = 64, 704, 30, 318


@dataclass(frozen=True, slots=True)
class Point:
    size_bytes: int
    size_label: str
    x: float
    y_busbw: float
    y_algbw: float
    result: CollectiveResult
    time_label: str
    busbw_label: str
    algbw_label: str


@dataclass(frozen=True, slots=True)
class Series:
    number: int
    system_id: str
    system_name: str
    algorithm: str
    nodes: int
    ranks: int
    points: tuple[Point, ...]
    busbw_line: str
    algbw_line: str
    crossover_x: float | None  # None when every size is on one side
    crossover_bytes: int | None  # the first bandwidth-bound size
    crossover_label: str
    all_latency_bound: bool
    peak_busbw_GBps: float
    peak_label: str


@dataclass(frozen=True, slots=True)
class View:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    op: str
    mode: str
    metric: str
    min_bytes: int
    max_bytes: int
    series: tuple[Series, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    latency_region_right: float | None  # of the first series
    size_choices: tuple[tuple[int, str], ...]

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(point.size_bytes for point in self.series[0].points)


_FIELD_OF_PARAMETER = {"system": "system", "algorithm": "algorithm", "nodes": "nodes", "gpus_per_node": "nodes"}


def _label_every(span_exponents: float) -> int:
    return next(every for every in (1, 2, 5, 10) if span_exponents / every <= 8)


def build(form: fields.Form) -> View:
    op = fields.choice(form, "op", OPS)
    mode = fields.choice(form, "mode", MODES)
    metric = fields.choice(form, "metric", METRICS)
    min_bytes = fields.whole(form, "min_bytes", 1, MAX_MESSAGE_BYTES)
    max_bytes = fields.whole(form, "max_bytes", 1, MAX_MESSAGE_BYTES)
    if min_bytes > max_bytes:
        raise fields.fail(
            "min_bytes",
            f"min_bytes must not exceed max_bytes ({max_bytes})",
            code="out_of_range",
            allowed=f"1..{max_bytes}",
        )
    wanted = []
    for number in range(1, SERIES + 1):
        choices = tuple(SYSTEMS) if number == 1 else (NONE, *SYSTEMS)
        system_id = fields.choice(form, f"system{number}", choices)
        algorithm = fields.choice(form, f"algorithm{number}", ALGORITHMS)
        nodes = fields.whole(form, f"nodes{number}", 1, MAX_NODES)
        if system_id != NONE:
            wanted.append((number, system_id, algorithm, nodes))

    results: list[tuple[int, str, str, int, tuple[CollectiveResult, ...]]] = []
    for number, system_id, algorithm, nodes in wanted:
        try:
            results.append(
                (
                    number,
                    system_id,
                    algorithm,
                    nodes,
                    sweep(op, min_bytes, max_bytes, system=system_id, nodes=nodes, algorithm=algorithm, mode=mode),
                )
            )
        except SimulationError as error:
            field = _FIELD_OF_PARAMETER.get(error.parameter)
            if field is None:
                raise fields.from_model(error.parameter, error) from None
            raise fields.from_model(f"{field}{number}", error, series=number) from None

    low, high = (min_bytes, max_bytes) if min_bytes < max_bytes else (min_bytes / 2, max_bytes * 2)
    x = LogScale(low, high, LEFT, RIGHT)
    shown = [r.busbw_GBps for *_, rs in results for r in rs if metric != "algbw"]
    shown += [r.algbw_GBps for *_, rs in results for r in rs if metric != "busbw"]
    top, step = nice_max(max(shown, default=1.0), 5)
    y = LinearScale(0.0, top, BOTTOM, TOP)

    series = []
    for number, system_id, algorithm, nodes, sweep_results in results:
        pts = tuple(
            Point(
                r.message_bytes,
                binary_size(r.message_bytes),
                x(r.message_bytes),
                y(r.busbw_GBps),
                y(r.algbw_GBps),
                r,
                format_seconds(r.time_s),
                significant(r.busbw_GBps),
                significant(r.algbw_GBps),
            )
            for r in sweep_results
        )
        first_bandwidth = next((i for i, p in enumerate(pts) if p.result.bottleneck != "latency"), None)
        crossover_x: float | None = None
        if first_bandwidth is not None and first_bandwidth > 0:
            crossover_x = px((pts[first_bandwidth - 1].x + pts[first_bandwidth].x) / 2)
        peak = max(r.busbw_GBps for r in sweep_results)
        system = SYSTEMS[system_id]
        series.append(
            Series(
                number=number,
                system_id=system_id,
                system_name=system.name,
                algorithm=algorithm,
                nodes=nodes,
                ranks=sweep_results[0].ranks,
                points=pts,
                busbw_line=points((p.x, p.y_busbw) for p in pts),
                algbw_line=points((p.x, p.y_algbw) for p in pts),
                crossover_x=crossover_x,
                crossover_bytes=pts[first_bandwidth].size_bytes if first_bandwidth is not None else None,
                crossover_label=binary_size(pts[first_bandwidth].size_bytes) if first_bandwidth is not None else "",
                all_latency_bound=first_bandwidth is None,
                peak_busbw_GBps=peak,
                peak_label=format_GBps(peak),
            )
        )
    first = series[0]
    region: float | None
    region = RIGHT if first.all_latency_bound else first.crossover_x
    span = math.log2(high) - math.log2(low)
    x_ticks = x.power_of_two_ticks(binary_size, _label_every(span))
    return View(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=RIGHT,
        top=TOP,
        bottom=BOTTOM,
        op=op,
        mode=mode,
        metric=metric,
        min_bytes=min_bytes,
        max_bytes=max_bytes,
        series=tuple(series),
        x_ticks=tuple(x_ticks),
        y_ticks=tuple(y.ticks(step, lambda v: f"{v:,g}")),
        latency_region_right=region,
        size_choices=tuple((size, binary_size(size)) for size in SIZE_CHOICES),
    )
