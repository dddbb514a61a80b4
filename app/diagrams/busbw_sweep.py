"""busbw-sweep: what nccl-tests would print (algbw and busbw) for every power-of-two size, for up to three
system x algorithm series, with the latency-bound and bandwidth-bound sizes marked.

A size is latency-bound when the simulator reports the per-step latency (the alpha term) as the larger part of
the time ("bottleneck": "latency"), bandwidth-bound when the size/bandwidth term is. The crossover drawn for
each series lies between the last latency-bound size and the first bandwidth-bound one.

Where a published nccl-tests sweep exists for a series' system, node count, GPU count and collective
(``app.simulator.published``), its measured busbw (or algbw) is drawn beside the model as crosses on a dotted
line, with its source in the caption and a column of the data table, so the lab shows reality next to the
model. Calibrated times whose expected error is above 5 % are labelled "≈ 42 µs (± 15 %)".

Two drawings of the same points: ``wide`` (720 units) and ``narrow`` for phones (300 units, fewer ticks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.diagrams import fields
from app.diagrams.svg import ChartFrame, LinearScale, LogScale, SeriesChart, nice_max, points, px
from app.diagrams.units import GiB, binary_size, format_GBps, format_seconds, significant
from app.i18n import _
from app.simulator import (
    ALGORITHMS,
    LINKS,
    MAX_MESSAGE_BYTES,
    MODES,
    OPS,
    SYSTEMS,
    CollectiveQuery,
    CollectiveResult,
    SimulationError,
    busbw_factor,
    sweep,
)
from app.simulator.published import PublishedSweep, sweeps_for

ID = "busbw-sweep"
SERIES = 3
METRICS = ("busbw", "algbw", "both")
NONE = "none"
SIZE_CHOICES = tuple(2**e for e in range(41))
MAX_NODES = max(system.max_nodes for system in SYSTEMS.values())
LIMITS: dict[str, object] = {"nodes": (1, MAX_NODES)}
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
LABELS: dict[str, str] = {
    "op": _("Collective"),
    "mode": _("Model"),
    "min_bytes": _("Smallest size (-b)"),
    "max_bytes": _("Largest size (-e)"),
    "metric": _("Show"),
    "system": _("System"),
    "algorithm": _("Algorithm"),
    "nodes": _("Nodes"),
}


@dataclass(frozen=True, slots=True)
class Frame(ChartFrame):
    max_size_labels: int
    y_ticks: int


WIDE = Frame("wide", 720, 400, 66, 704, 34, 322, 8, 5)
NARROW = Frame("narrow", 300, 312, 44, 290, 40, 252, 3, 3)


@dataclass(frozen=True, slots=True)
class Point:
    size_bytes: int
    size_label: str
    result: CollectiveResult
    time_label: str
    busbw_label: str
    algbw_label: str

    @property
    def limiting_link(self) -> str | None:
        """The link whose bandwidth bounds this size, as a learner reads it ("NVLink 4", "InfiniBand NDR"); None
        while the per-step latency does (or nothing crosses a link)."""
        link = LINKS.get(self.result.bottleneck)
        return link.name.split(" (")[0].removesuffix(" 4x") if link is not None else None


# Below this expected error a calibrated time is labelled as a plain number (as in the chapters' figures).
SHOWN_ERROR_ABOVE_PERCENT = 5.0


def time_label(result: CollectiveResult) -> str:
    """``39.9 µs``, or ``≈ 39.9 µs (± 30 %)`` where the calibrated model's expected error is above 5 %."""
    shown = format_seconds(result.time_s)
    if result.error_percent > SHOWN_ERROR_ABOVE_PERCENT:
        return f"≈ {shown} (± {result.error_percent:.0f} %)"
    return shown


@dataclass(frozen=True, slots=True)
class Measured:
    """A published sweep drawn beside a series: its busbw (and algbw = busbw / factor) at the sizes shown."""

    sweep: PublishedSweep
    points: tuple[tuple[int, float, float], ...]  # (message_bytes, busbw_GBps, algbw_GBps)

    def busbw_at(self, size_bytes: int) -> str:
        """The measured busbw at a size, as printed, or '' where the sweep has no row."""
        return next((significant(busbw) for size, busbw, _ in self.points if size == size_bytes), "")


@dataclass(frozen=True, slots=True)
class Series:
    number: int
    system_id: str
    system_name: str
    algorithm: str
    nodes: int
    ranks: int
    points: tuple[Point, ...]
    crossover_index: int | None  # the first bandwidth-bound point, when some point before it is latency-bound
    crossover_bytes: int | None  # the first bandwidth-bound size
    crossover_label: str
    all_latency_bound: bool
    peak_busbw_GBps: float
    peak_label: str
    measured: Measured | None = None


@dataclass(frozen=True, slots=True)
class DrawnSeries:
    number: int
    busbw: tuple[tuple[float, float], ...]
    algbw: tuple[tuple[float, float], ...]
    busbw_line: str
    algbw_line: str
    crossover_x: float | None  # None when every size is on one side
    measured: tuple[tuple[float, float], ...] = ()  # the published sweep's points, in the metric shown
    measured_line: str = ""


@dataclass(frozen=True, slots=True)
class Chart(SeriesChart[Frame, DrawnSeries]):
    latency_region_right: float | None  # of the first series


@dataclass(frozen=True, slots=True)
class View:
    op: str
    mode: str
    metric: str
    min_bytes: int
    max_bytes: int
    series: tuple[Series, ...]
    layouts: tuple[Chart, ...]
    size_choices: tuple[tuple[int, str], ...]

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(point.size_bytes for point in self.series[0].points)

    @property
    def measured(self) -> tuple[Series, ...]:
        """The series drawn with a published sweep beside them."""
        return tuple(series for series in self.series if series.measured is not None)


_FIELD_OF_PARAMETER = {"system": "system", "algorithm": "algorithm", "nodes": "nodes", "gpus_per_node": "nodes"}


def _label_every(span_exponents: float, labels: int) -> int:
    return next((every for every in (1, 2, 5, 10, 20) if span_exponents / every <= labels), 40)


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
            kind="order",
            values={"other": "max_bytes"},
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
                    sweep(
                        CollectiveQuery(op, system=system_id, nodes=nodes, algorithm=algorithm, mode=mode),
                        min_bytes,
                        max_bytes,
                    ),
                )
            )
        except SimulationError as error:
            field = _FIELD_OF_PARAMETER.get(error.parameter)
            if field is None:
                raise fields.from_model(error.parameter, error) from None
            raise fields.from_model(f"{field}{number}", error, series=number) from None

    series = []
    for number, system_id, algorithm, nodes, sweep_results in results:
        pts = tuple(
            Point(
                r.message_bytes,
                binary_size(r.message_bytes),
                r,
                time_label(r),
                significant(r.busbw_GBps),
                significant(r.algbw_GBps),
            )
            for r in sweep_results
        )
        first_bandwidth = next((i for i, p in enumerate(pts) if p.result.bottleneck != "latency"), None)
        peak = max(r.busbw_GBps for r in sweep_results)
        system = SYSTEMS[system_id]
        shown_sizes = {p.size_bytes for p in pts}
        series.append(
            Series(
                number=number,
                system_id=system_id,
                system_name=system.name,
                algorithm=algorithm,
                nodes=nodes,
                ranks=sweep_results[0].ranks,
                points=pts,
                crossover_index=first_bandwidth if first_bandwidth else None,
                crossover_bytes=pts[first_bandwidth].size_bytes if first_bandwidth is not None else None,
                crossover_label=binary_size(pts[first_bandwidth].size_bytes) if first_bandwidth is not None else "",
                all_latency_bound=first_bandwidth is None,
                peak_busbw_GBps=peak,
                peak_label=format_GBps(peak),
                measured=_measured(op, system_id, nodes, sweep_results[0].ranks, shown_sizes),
            )
        )
    return View(
        op=op,
        mode=mode,
        metric=metric,
        min_bytes=min_bytes,
        max_bytes=max_bytes,
        series=tuple(series),
        layouts=tuple(_chart(frame, series, metric, min_bytes, max_bytes) for frame in (WIDE, NARROW)),
        size_choices=tuple((size, binary_size(size)) for size in SIZE_CHOICES),
    )


def _measured(op: str, system_id: str, nodes: int, ranks: int, sizes: set[int]) -> Measured | None:
    """The first published sweep of this collective on all of this system's GPUs, at the sizes shown."""
    gpus = SYSTEMS[system_id].gpus_per_node
    for published in sweeps_for(system_id, nodes, op):
        if published.gpus_per_node != gpus:
            continue
        factor = busbw_factor(op, ranks)
        points = tuple((size, busbw, busbw / factor) for size, busbw in published.rows if size in sizes)
        if points:
            return Measured(published, points)
    return None


def _chart(frame: Frame, series: list[Series], metric: str, min_bytes: int, max_bytes: int) -> Chart:
    low, high = (min_bytes, max_bytes) if min_bytes < max_bytes else (min_bytes / 2, max_bytes * 2)
    x = LogScale(low, high, frame.left, frame.right)
    shown = [p.result.busbw_GBps for one in series for p in one.points if metric != "algbw"]
    shown += [p.result.algbw_GBps for one in series for p in one.points if metric != "busbw"]
    for one in series:
        if one.measured is not None:
            shown += [busbw if metric != "algbw" else algbw for _, busbw, algbw in one.measured.points]
    top, step = nice_max(max(shown, default=1.0), frame.y_ticks)
    y = LinearScale(0.0, top, frame.bottom, frame.top)
    drawn = []
    for one in series:
        busbw = tuple((x(p.size_bytes), y(p.result.busbw_GBps)) for p in one.points)
        algbw = tuple((x(p.size_bytes), y(p.result.algbw_GBps)) for p in one.points)
        crossover_x = None
        if one.crossover_index is not None:
            crossover_x = px((busbw[one.crossover_index - 1][0] + busbw[one.crossover_index][0]) / 2)
        measured: tuple[tuple[float, float], ...] = ()
        if one.measured is not None:
            measured = tuple(
                (x(size), y(busbw_GBps if metric != "algbw" else algbw_GBps))
                for size, busbw_GBps, algbw_GBps in one.measured.points
            )
        drawn.append(
            DrawnSeries(
                one.number,
                busbw,
                algbw,
                points(busbw),
                points(algbw),
                crossover_x,
                measured,
                points(measured) if measured else "",
            )
        )
    first = drawn[0]
    region = frame.right if series[0].all_latency_bound else first.crossover_x
    span = math.log2(high) - math.log2(low)
    return Chart(
        frame=frame,
        series=tuple(drawn),
        x_ticks=tuple(x.power_of_two_ticks(binary_size, _label_every(span, frame.max_size_labels))),
        y_ticks=tuple(y.ticks(step, lambda v: f"{v:,g}")),
        latency_region_right=region,
    )
