"""ring-allreduce: a ring all-reduce on n GPUs, one step at a time.

The buffer of S bytes is cut into n chunks. In reduce-scatter step k (1..n-1) GPU i sends chunk (i-k+1) mod n
to GPU i+1, which adds it to its own copy; after n-1 steps GPU i holds the complete sum of chunk (i+1) mod n.
In all-gather step j (0..n-2, overall step n+j) GPU i forwards the complete chunk (i+1-j) mod n, which the
receiver stores. Every step moves S/n bytes per GPU in each ring direction, so after k of the 2(n-1) steps each
GPU has sent k*S/n bytes, and in the ideal model (no latency) k/(2(n-1)) of the all-reduce's time has passed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.simulator import LINKS, SYSTEMS, SimulationError, simulate_collective
from app.web.diagrams import fields
from app.web.diagrams.svg import px
from app.web.diagrams.units import GiB, MiB, binary_size, exact, format_seconds, significant

ID = "ring-allreduce"
UNITS: dict[str, int] = {"GiB": GiB, "MiB": MiB, "GB": 10**9, "MB": 10**6}
MIN_GPUS, MAX_GPUS = 2, 8
SYSTEM_IDS = tuple(system_id for system_id, system in SYSTEMS.items() if system.gpus_per_node >= MAX_GPUS)
DEFAULTS: dict[str, str] = {"gpus": "4", "size": "1", "unit": "GiB", "system": "dgx-h100", "step": "0", "drawn": "4"}
MAX_BYTES = 2**40

WIDTH, HEIGHT = 560, 560
CENTER_X, CENTER_Y, RADIUS = 280, 250, 184
CELL_W, CELL_H = 13, 30
TIMELINE_Y = 506


@dataclass(frozen=True, slots=True)
class Cell:
    chunk: int
    x: float
    y: float
    count: int  # how many GPUs' data is summed into this copy of the chunk
    fill_y: float
    fill_h: float
    complete: bool
    moving: bool  # this chunk arrives at this GPU during the current step


@dataclass(frozen=True, slots=True)
class Gpu:
    number: int
    x: float
    y: float
    w: float
    h: float
    cells: tuple[Cell, ...]
    sends: int | None  # the chunk it sends at the current step
    receives: int | None
    holds_complete: tuple[int, ...]

    @property
    def cx(self) -> float:
        return px(self.x + self.w / 2)


@dataclass(frozen=True, slots=True)
class Arrow:
    source: int
    target: int
    chunk: int
    x1: float
    y1: float
    x2: float
    y2: float
    label_x: float
    label_y: float


@dataclass(frozen=True, slots=True)
class StepBox:
    number: int
    x: float
    w: float
    phase: str  # reduce-scatter or all-gather
    state: str  # done, current or todo


@dataclass(frozen=True, slots=True)
class View:
    width: int
    height: int
    gpus_count: int
    size_bytes: int
    size_label: str
    system_id: str
    system_name: str
    link_name: str
    bandwidth_GBps: float
    bandwidth_label: str
    step: int
    steps: int
    phase: str  # start, reduce-scatter, all-gather or done
    phase_step: int  # 1-based step inside the phase
    gpus: tuple[Gpu, ...]
    ring: tuple[tuple[float, float, float, float], ...]
    arrows: tuple[Arrow, ...]
    timeline: tuple[StepBox, ...]
    timeline_y: float
    rs_label_x: float
    ag_label_x: float
    chunk_bytes: float
    chunk_label: str
    sent_bytes: float
    sent_label: str
    elapsed_s: float
    elapsed_label: str
    total_s: float
    total_label: str
    previous_step: int | None
    next_step: int | None


def transfers(gpus: int, step: int) -> list[tuple[int, int, int]]:
    """(sender, receiver, chunk) for every GPU at ``step`` (1-based; 0 moves nothing)."""
    if step == 0:
        return []
    if step <= gpus - 1:
        return [(i, (i + 1) % gpus, (i - step + 1) % gpus) for i in range(gpus)]
    j = step - gpus
    return [(i, (i + 1) % gpus, (i + 1 - j) % gpus) for i in range(gpus)]


def contributions(gpus: int, step: int) -> list[list[int]]:
    """Bit masks: which GPUs' data each GPU's copy of each chunk contains after ``step`` steps."""
    held = [[1 << i for _ in range(gpus)] for i in range(gpus)]
    for k in range(1, step + 1):
        before = [list(row) for row in held]
        for sender, receiver, chunk in transfers(gpus, k):
            if k <= gpus - 1:
                held[receiver][chunk] = before[receiver][chunk] | before[sender][chunk]
            else:
                held[receiver][chunk] = before[sender][chunk]
    return held


def _size(form: fields.Form) -> tuple[int, str]:
    unit = fields.choice(form, "unit", tuple(UNITS))
    factor = UNITS[unit]
    size = fields.positive(form, "size", MAX_BYTES / factor, unit)
    size_bytes = round(size * factor)
    if not 1 <= size_bytes <= MAX_BYTES:
        raise fields.fail(
            "size",
            f"size must be at least 1 byte and at most {exact(MAX_BYTES / factor)} {unit}",
            code="out_of_range",
            allowed=f"1 B ≤ size ≤ {exact(MAX_BYTES / factor)} {unit}",
        )
    return size_bytes, f"{significant(size, digits=6)} {unit}"


def build(form: fields.Form) -> View:
    n = fields.whole(form, "gpus", MIN_GPUS, MAX_GPUS)
    size_bytes, size_label = _size(form)
    system_id = fields.choice(form, "system", SYSTEM_IDS)
    steps = 2 * (n - 1)
    # A step number belongs to the ring it was drawn for: a new ring size starts again at step 0.
    step = fields.whole(form, "step", 0, steps) if form["drawn"] == str(n) else 0
    try:
        result = simulate_collective(
            "all_reduce", size_bytes, system=system_id, gpus_per_node=n, algorithm="ring", mode="ideal"
        )
    except SimulationError as error:
        raise fields.from_model(error.parameter if error.parameter in form else "gpus", error) from None
    system = SYSTEMS[system_id]
    held = contributions(n, step)
    moves = transfers(n, step)
    sends = {sender: chunk for sender, _, chunk in moves}
    receives = {receiver: chunk for _, receiver, chunk in moves}
    full = (1 << n) - 1

    box_w = max(n * (CELL_W + 1) + 13, 84)
    box_h = 74
    gpus = []
    centers = []
    for i in range(n):
        angle = -math.pi / 2 + 2 * math.pi * i / n
        cx, cy = CENTER_X + RADIUS * math.cos(angle), CENTER_Y + RADIUS * math.sin(angle)
        centers.append((cx, cy))
        x, y = cx - box_w / 2, cy - box_h / 2
        cells = []
        for c in range(n):
            count = bin(held[i][c]).count("1")
            cell_x = x + (box_w - n * (CELL_W + 1) + 1) / 2 + c * (CELL_W + 1)
            cell_y = y + 22
            fill_h = CELL_H * count / n
            cells.append(
                Cell(
                    c,
                    px(cell_x),
                    px(cell_y),
                    count,
                    px(cell_y + CELL_H - fill_h),
                    px(fill_h),
                    held[i][c] == full,
                    receives.get(i) == c,
                )
            )
        gpus.append(
            Gpu(
                i,
                px(x),
                px(y),
                box_w,
                box_h,
                tuple(cells),
                sends.get(i),
                receives.get(i),
                tuple(c for c in range(n) if held[i][c] == full),
            )
        )

    ring = []
    arrows = []
    for i in range(n):
        (x1, y1), (x2, y2) = centers[i], centers[(i + 1) % n]
        length = math.hypot(x2 - x1, y2 - y1)
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        shrink = min(box_w, box_h) / 2 + 10 if n > 2 else box_h / 2 + 8
        ring.append((px(x1 + ux * shrink), px(y1 + uy * shrink), px(x2 - ux * shrink), px(y2 - uy * shrink)))
    for sender, receiver, chunk in moves:
        (x1, y1), (x2, y2) = centers[sender], centers[receiver]
        length = math.hypot(x2 - x1, y2 - y1)
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        nx, ny = uy, -ux  # to the left of the direction of travel: outward on a clockwise ring
        shift = 7.0
        shrink = min(box_w, box_h) / 2 + 12 if n > 2 else box_h / 2 + 10
        mx, my = (x1 + x2) / 2 + nx * 22, (y1 + y2) / 2 + ny * 22
        arrows.append(
            Arrow(
                sender,
                receiver,
                chunk,
                px(x1 + ux * shrink + nx * shift),
                px(y1 + uy * shrink + ny * shift),
                px(x2 - ux * shrink + nx * shift),
                px(y2 - uy * shrink + ny * shift),
                px(mx),
                px(my + 4),
            )
        )

    left, right = 24.0, WIDTH - 24.0
    slot = (right - left) / steps
    timeline = []
    for k in range(1, steps + 1):
        state = "done" if k < step else "current" if k == step else "todo"
        timeline.append(
            StepBox(
                k, px(left + (k - 1) * slot + 1), px(slot - 2), "reduce-scatter" if k <= n - 1 else "all-gather", state
            )
        )
    if step == 0:
        phase, phase_step = "start", 0
    elif step <= n - 1:
        phase, phase_step = "reduce-scatter", step
    else:
        phase, phase_step = "all-gather", step - (n - 1)
    if step == steps:
        phase = "done"
    chunk_bytes = size_bytes / n
    per_step_s = result.time_s / steps
    return View(
        width=WIDTH,
        height=HEIGHT,
        gpus_count=n,
        size_bytes=size_bytes,
        size_label=size_label,
        system_id=system_id,
        system_name=system.name,
        link_name=LINKS[system.scale_up].name.split(" (")[0],
        bandwidth_GBps=system.scale_up_GBps,
        bandwidth_label=exact(system.scale_up_GBps),
        step=step,
        steps=steps,
        phase=phase,
        phase_step=phase_step,
        gpus=tuple(gpus),
        ring=tuple(ring),
        arrows=tuple(arrows),
        timeline=tuple(timeline),
        timeline_y=TIMELINE_Y,
        rs_label_x=px(left + slot * (n - 1) / 2),
        ag_label_x=px(left + slot * (n - 1) * 1.5),
        chunk_bytes=chunk_bytes,
        chunk_label=binary_size(chunk_bytes),
        sent_bytes=step * chunk_bytes,
        sent_label=binary_size(step * chunk_bytes),
        elapsed_s=step * per_step_s,
        elapsed_label=format_seconds(step * per_step_s),
        total_s=result.time_s,
        total_label=format_seconds(result.time_s),
        previous_step=step - 1 if step > 0 else None,
        next_step=step + 1 if step < steps else None,
    )
