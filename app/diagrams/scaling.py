"""scaling: the gradient all-reduce of data-parallel training against the GPU count, next to the compute time.

For each chosen system the GPU count grows inside one NVLink domain (1 node, 2..g GPUs), then across nodes
over the scale-out network (2..max_nodes nodes of g GPUs). Each point is ``training_step`` with bf16 gradients
(2 bytes per parameter); the first point whose all-reduce takes longer than the compute is marked.

Inside a node the all-reduce can get faster as GPUs are added: from 4 GPUs on an NVSwitch system the fastest
algorithm the model knows is NVLS, whose NVSwitch does the reduction, so each GPU moves (n+1)/n x S per direction
(1.25 x S at 4 GPUs, 1.125 x S at 8), where a ring moves 2(n-1)/n x S (1.5 x S, 1.75 x S). ``speedups`` finds such
steps so the legend can say why the line goes down.

Two drawings of the same points: ``wide`` (720 units, every power of two labelled) and ``narrow`` for phones
(300 units, fewer ticks, still up to the largest GPU count).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from app.diagrams import fields
from app.diagrams.svg import ChartFrame, LogScale, SeriesChart, points, px
from app.diagrams.units import format_seconds, significant
from app.i18n import _
from app.simulator import LINKS, MAX_MESSAGE_BYTES, MODES, SYSTEMS, SimulationError, TrainingStep, training_step

ID = "scaling"
SERIES = 3
NONE = "none"
BYTES_PER_GRADIENT = 2  # bf16
MAX_PARAMETERS_B = MAX_MESSAGE_BYTES / BYTES_PER_GRADIENT / 1e9
MAX_COMPUTE_MS = 3_600_000.0  # an hour per step is already far outside training practice
LIMITS: dict[str, object] = {
    "params_b": fields.limit(MAX_PARAMETERS_B, "B"),
    "compute_ms": fields.limit(MAX_COMPUTE_MS, "ms"),
}
DEFAULTS: dict[str, str] = {
    "params_b": "7",
    "compute_ms": "60",
    "mode": "calibrated",
    "system1": "dgx-h100",
    "system2": "gb200-nvl72",
    "system3": "pcie-gen5-8gpu",
}
LABELS: dict[str, str] = {
    "params_b": _("Model size, billions of parameters (bf16 gradients)"),
    "compute_ms": _("Compute per step, ms"),
    "mode": _("Model"),
    "system1": _("System"),
    "system2": _("System"),
    "system3": _("System"),
}


@dataclass(frozen=True, slots=True)
class Frame(ChartFrame):
    label_every: int  # label every n-th power of two on the GPU axis


WIDE = Frame("wide", 720, 414, 74, 696, 60, 340, 1)
NARROW = Frame("narrow", 300, 380, 62, 290, 64, 314, 3)


@dataclass(frozen=True, slots=True)
class Point:
    gpus: int
    nodes: int
    gpus_per_node: int
    step: TrainingStep
    time_label: str
    inside: bool  # inside one NVLink (scale-up) domain


@dataclass(frozen=True, slots=True)
class Speedup:
    """Inside one node, more GPUs and a shorter all-reduce: what the legend explains."""

    fewer: Point
    more: Point


@dataclass(frozen=True, slots=True)
class DrawnSeries:
    number: int
    domain_x: float
    domain_label_y: float  # stacked when two systems share a node size
    domain_gpus: int
    markers: tuple[tuple[float, float], ...]
    inside_line: str
    outside_line: str
    exposed: tuple[float, float] | None


@dataclass(frozen=True, slots=True)
class Chart(SeriesChart[Frame, DrawnSeries]):
    compute_y: float


@dataclass(frozen=True, slots=True)
class Series:
    number: int
    system_id: str
    system_name: str
    domain_gpus: int
    scale_up_name: str
    scale_out_name: str
    points: tuple[Point, ...]
    first_exposed: Point | None
    speedups: tuple[Speedup, ...]


@dataclass(frozen=True, slots=True)
class View:
    parameters: int
    parameters_label: str
    gradient_bytes: int
    gradient_label: str
    compute_s: float
    compute_label: str
    mode: str
    series: tuple[Series, ...]
    layouts: tuple[Chart, ...]


def gpu_counts(system_id: str) -> list[tuple[int, int]]:
    """(nodes, gpus_per_node): powers of two inside one node up to a full node, then powers of two of nodes."""
    system = SYSTEMS[system_id]
    inside = sorted({2**k for k in range(1, 12) if 2**k < system.gpus_per_node} | {system.gpus_per_node})
    across = sorted({2**k for k in range(1, 12) if 2**k < system.max_nodes} | {system.max_nodes})
    return [(1, g) for g in inside] + [(nodes, system.gpus_per_node) for nodes in across if nodes > 1]


def build(form: fields.Form) -> View:
    params_b = fields.positive(form, "params_b", MAX_PARAMETERS_B, "B")
    compute_ms = fields.positive(form, "compute_ms", MAX_COMPUTE_MS, "ms")
    mode = fields.choice(form, "mode", MODES)
    parameters = max(round(params_b * 1e9), 1)
    chosen = []
    for number in range(1, SERIES + 1):
        choices = tuple(SYSTEMS) if number == 1 else (NONE, *SYSTEMS)
        system_id = fields.choice(form, f"system{number}", choices)
        if system_id != NONE:
            chosen.append((number, system_id))

    computed: list[tuple[int, str, list[tuple[int, int, TrainingStep]]]] = []
    for number, system_id in chosen:
        steps = []
        for nodes, per_node in gpu_counts(system_id):
            try:
                steps.append(
                    (
                        nodes,
                        per_node,
                        training_step(
                            parameters,
                            system_id,
                            nodes,
                            compute_ms / 1e3,
                            BYTES_PER_GRADIENT,
                            mode=mode,
                            gpus_per_node=per_node,
                        ),
                    )
                )
            except SimulationError as error:
                field = (
                    "params_b"
                    if error.parameter == "parameters"
                    else "compute_ms"
                    if error.parameter == "compute_time_s"
                    else f"system{number}"
                )
                raise fields.from_model(field, error) from None
        computed.append((number, system_id, steps))

    compute_s = compute_ms / 1e3
    series: list[Series] = []
    for number, system_id, steps in computed:
        system = SYSTEMS[system_id]
        pts = tuple(
            Point(
                nodes * per_node,
                nodes,
                per_node,
                s,
                format_seconds(s.allreduce_time_s),
                nodes == 1,
            )
            for nodes, per_node, s in steps
        )
        inside = [p for p in pts if p.inside]
        series.append(
            Series(
                number=number,
                system_id=system_id,
                system_name=system.name,
                domain_gpus=system.gpus_per_node,
                scale_up_name=LINKS[system.scale_up].name.split(" (")[0],
                scale_out_name=LINKS[system.scale_out].name.split(" (")[0],
                points=pts,
                first_exposed=next((p for p in pts if p.step.exposed), None),
                speedups=tuple(
                    Speedup(fewer, more)
                    for fewer, more in itertools.pairwise(inside)
                    if more.step.allreduce_time_s < fewer.step.allreduce_time_s
                ),
            )
        )
    return View(
        parameters=parameters,
        parameters_label=significant(params_b, digits=6),
        gradient_bytes=parameters * BYTES_PER_GRADIENT,
        gradient_label=f"{significant(parameters * BYTES_PER_GRADIENT / 1e9)} GB",
        compute_s=compute_s,
        compute_label=format_seconds(compute_s),
        mode=mode,
        series=tuple(series),
        layouts=(_chart(WIDE, series, compute_s), _chart(NARROW, series, compute_s)),
    )


def state(form: fields.Form, view: object) -> dict[str, str]:
    numbers = {name: fields.canonical_number(form[name]) for name in ("params_b", "compute_ms")}
    return dict(form) | numbers


def _chart(frame: Frame, series: list[Series], compute_s: float) -> Chart:
    times = [p.step.allreduce_time_s for one in series for p in one.points] + [compute_s]
    most_gpus = max(p.gpus for one in series for p in one.points)
    x = LogScale(2, most_gpus, frame.left, frame.right)
    y = LogScale(min(times) / 2, max(times) * 2, frame.bottom, frame.top)
    drawn: list[DrawnSeries] = []
    for one in series:
        xy = [(x(p.gpus), y(p.step.allreduce_time_s)) for p in one.points]
        inside = [pair for pair, p in zip(xy, one.points, strict=True) if p.inside]
        outside = [inside[-1], *(pair for pair, p in zip(xy, one.points, strict=True) if not p.inside)]
        sharing = len([other for other in drawn if other.domain_gpus == one.domain_gpus])
        exposed = one.points.index(one.first_exposed) if one.first_exposed else None
        drawn.append(
            DrawnSeries(
                number=one.number,
                domain_x=x(one.domain_gpus),
                domain_label_y=frame.top - 10 - 17 * sharing,
                domain_gpus=one.domain_gpus,
                markers=tuple(xy),
                inside_line=points(inside),
                outside_line=points(outside) if len(outside) > 1 else "",
                exposed=xy[exposed] if exposed is not None else None,
            )
        )
    y_ticks = [t for t in y.decade_ticks(format_seconds) if t.major]
    if len(y_ticks) < 3:
        y_ticks = y.decade_ticks(format_seconds)
    return Chart(
        frame=frame,
        series=tuple(drawn),
        x_ticks=tuple(x.power_of_two_ticks(lambda v: f"{v:,g}", frame.label_every)),
        y_ticks=tuple(y_ticks),
        compute_y=px(y(compute_s)),
    )
