"""scaling: the gradient all-reduce of data-parallel training against the GPU count, next to the compute time.

For each chosen system the GPU count grows inside one NVLink domain (1 node, 2..g GPUs), then across nodes
over the scale-out network (2..max_nodes nodes of g GPUs). Each point is ``training_step`` with bf16 gradients
(2 bytes per parameter); the first point whose all-reduce takes longer than the compute is marked.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.simulator import LINKS, MAX_MESSAGE_BYTES, MODES, SYSTEMS, SimulationError, TrainingStep, training_step
from app.web.diagrams import fields
from app.web.diagrams.svg import LogScale, Tick, points, px
from app.web.diagrams.units import format_seconds, significant

ID = "scaling"
SERIES = 3
NONE = "none"
BYTES_PER_GRADIENT = 2  # bf16
MAX_PARAMETERS_B = MAX_MESSAGE_BYTES / BYTES_PER_GRADIENT / 1e9
MAX_COMPUTE_MS = 3_600_000.0  # an hour per step is already far outside training practice
DEFAULTS: dict[str, str] = {
    "params_b": "7",
    "compute_ms": "60",
    "mode": "calibrated",
    "system1": "dgx-h100",
    "system2": "gb200-nvl72",
    "system3": "pcie-gen5-8gpu",
}

WIDTH, HEIGHT = 720, 396
LEFT, RIGHT, TOP, BOTTOM = 70, 690, 40, 326


@dataclass(frozen=True, slots=True)
class Point:
    gpus: int
    nodes: int
    gpus_per_node: int
    x: float
    y: float
    step: TrainingStep
    time_label: str
    inside: bool  # inside one NVLink (scale-up) domain


@dataclass(frozen=True, slots=True)
class Series:
    number: int
    system_id: str
    system_name: str
    domain_gpus: int
    domain_x: float
    domain_label_y: float  # stacked when two systems share a node size
    scale_up_name: str
    scale_out_name: str
    points: tuple[Point, ...]
    inside_line: str
    outside_line: str
    first_exposed: Point | None


@dataclass(frozen=True, slots=True)
class View:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    parameters: int
    parameters_label: str
    gradient_bytes: int
    gradient_label: str
    compute_s: float
    compute_label: str
    compute_y: float
    mode: str
    series: tuple[Series, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]


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
    times = [s.allreduce_time_s for *_, steps in computed for *_, s in steps] + [compute_s]
    most_gpus = max(nodes * per_node for *_, steps in computed for nodes, per_node, _ in steps)
    x = LogScale(2, most_gpus, LEFT, RIGHT)
    y_low, y_high = min(times) / 2, max(times) * 2
    y = LogScale(y_low, y_high, BOTTOM, TOP)

    series: list[Series] = []
    for number, system_id, steps in computed:
        system = SYSTEMS[system_id]
        pts = tuple(
            Point(
                nodes * per_node,
                nodes,
                per_node,
                x(nodes * per_node),
                y(s.allreduce_time_s),
                s,
                format_seconds(s.allreduce_time_s),
                nodes == 1,
            )
            for nodes, per_node, s in steps
        )
        inside = [p for p in pts if p.inside]
        outside = [inside[-1], *(p for p in pts if not p.inside)]
        sharing = len([other for other in series if other.domain_gpus == system.gpus_per_node])
        series.append(
            Series(
                number=number,
                system_id=system_id,
                system_name=system.name,
                domain_gpus=system.gpus_per_node,
                domain_x=x(system.gpus_per_node),
                domain_label_y=TOP - 8 - 13 * sharing,
                scale_up_name=LINKS[system.scale_up].name.split(" (")[0],
                scale_out_name=LINKS[system.scale_out].name.split(" (")[0],
                points=pts,
                inside_line=points((p.x, p.y) for p in inside),
                outside_line=points((p.x, p.y) for p in outside) if len(outside) > 1 else "",
                first_exposed=next((p for p in pts if p.step.exposed), None),
            )
        )
    y_ticks = [t for t in y.decade_ticks(format_seconds) if t.major]
    if len(y_ticks) < 3:
        y_ticks = y.decade_ticks(format_seconds)
    return View(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=RIGHT,
        top=TOP,
        bottom=BOTTOM,
        parameters=parameters,
        parameters_label=significant(params_b, digits=6),
        gradient_bytes=parameters * BYTES_PER_GRADIENT,
        gradient_label=f"{significant(parameters * BYTES_PER_GRADIENT / 1e9)} GB",
        compute_s=compute_s,
        compute_label=format_seconds(compute_s),
        compute_y=px(y(compute_s)),
        mode=mode,
        series=tuple(series),
        x_ticks=tuple(x.power_of_two_ticks(lambda v: f"{v:,g}", 1)),
        y_ticks=tuple(y_ticks),
    )
