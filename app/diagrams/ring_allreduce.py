"""ring-allreduce: a ring all-reduce on n GPUs, one step at a time.

The buffer of S bytes is cut into n chunks. In reduce-scatter step k (1..n-1) GPU i sends chunk (i-k+1) mod n
to GPU i+1, which adds it to its own copy; after n-1 steps GPU i holds the complete sum of chunk (i+1) mod n.
In all-gather step j (0..n-2, overall step n+j) GPU i forwards the complete chunk (i+1-j) mod n, which the
receiver stores. Every step moves S/n bytes per GPU in each ring direction, so after k of the 2(n-1) steps each
GPU has sent k*S/n bytes, and in the ideal model (no latency) k/(2(n-1)) of the all-reduce's time has passed.

Two drawings: ``wide``, the GPUs around a circle with the chunk each one sends on the arrow to its neighbour, and
``narrow`` for phones, the GPUs one under the other with their chunks in columns c0..c(n-1), so that a chunk's
journey is a vertical arrow in its own column (and the last GPU's, back to GPU 0, runs up the left side).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.diagrams import fields
from app.diagrams.svg import px
from app.diagrams.units import GiB, MiB, TiB, binary_size, exact, format_seconds, significant
from app.i18n import _
from app.simulator import LINKS, SYSTEMS, CollectiveQuery, SimulationError, simulate_collective

ID = "ring-allreduce"
UNITS: dict[str, int] = {"GiB": GiB, "MiB": MiB, "GB": 10**9, "MB": 10**6}
MIN_GPUS, MAX_GPUS = 2, 8
SYSTEM_IDS = tuple(system_id for system_id, system in SYSTEMS.items() if system.gpus_per_node >= MAX_GPUS)
DEFAULTS: dict[str, str] = {"gpus": "4", "size": "1", "unit": "GiB", "system": "dgx-h100", "step": "0", "drawn": "4"}
LABELS: dict[str, str] = {
    "gpus": _("GPUs in the ring"),
    "size": _("Buffer per GPU (S)"),
    "unit": _("Unit"),
    "system": _("Link for the time"),
    "step": _("Step"),
    "drawn": _("GPUs in the ring"),
}
MAX_BYTES = TiB
LIMITS: dict[str, object] = {"size": fields.tebibytes(MAX_BYTES)}

WIDTH, HEIGHT = 600, 590
CENTER_X, CENTER_Y, RADIUS = 300, 256, 208
CELL_W, CELL_H = 16, 30
TIMELINE_Y = 530
NARROW_WIDTH = 300
NARROW_TOP = 44  # the chunk headers c0.. sit above the first row
NARROW_ROW = 52
NARROW_CELLS_X, NARROW_CELL_W, NARROW_CELL_H, NARROW_CELL_STEP = 66, 24, 28, 28


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
class WideRing:
    """The circle: the geometry lives on the View itself (gpus, ring, arrows, timeline)."""

    name: str = "wide"
    width: int = WIDTH
    height: int = HEIGHT


@dataclass(frozen=True, slots=True)
class NarrowRow:
    number: int
    y: float
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class NarrowRing:
    rows: tuple[NarrowRow, ...]
    headers: tuple[tuple[float, str], ...]  # (x, "c0") above each column of chunks
    arrows: tuple[str, ...]  # polylines, one per sender
    timeline: tuple[StepBox, ...]
    timeline_y: float
    rs_label_x: float
    ag_label_x: float
    height: float
    name: str = "narrow"
    width: int = NARROW_WIDTH


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
    narrow: NarrowRing

    @property
    def layouts(self) -> tuple[WideRing | NarrowRing, ...]:
        return (WideRing(), self.narrow)


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
    size_bytes, size, unit = fields.size_in_bytes(form, UNITS, MAX_BYTES)
    return size_bytes, f"{significant(size, digits=6)} {unit}"


def _timeline(n: int, step: int, left: float, right: float) -> tuple[tuple[StepBox, ...], float, float]:
    steps = 2 * (n - 1)
    slot = (right - left) / steps
    boxes = []
    for k in range(1, steps + 1):
        state = "done" if k < step else "current" if k == step else "todo"
        phase = "reduce-scatter" if k <= n - 1 else "all-gather"
        boxes.append(StepBox(k, px(left + (k - 1) * slot + 1), px(slot - 2), phase, state))
    return tuple(boxes), px(left + slot * (n - 1) / 2), px(left + slot * (n - 1) * 1.5)


def _cell(chunk: int, x: float, y: float, height: float, held: int, n: int, moving: bool) -> Cell:
    """A chunk's copy on one GPU, filled from the bottom by the share of the GPUs' data summed into it (`held`
    has a bit per GPU)."""
    count = bin(held).count("1")
    fill_h = height * count / n
    return Cell(chunk, px(x), px(y), count, px(y + height - fill_h), px(fill_h), held == (1 << n) - 1, moving)


def _narrow(n: int, step: int, held: list[list[int]], moves: list[tuple[int, int, int]]) -> NarrowRing:
    receives = {receiver: chunk for _, receiver, chunk in moves}
    rows = []
    for i in range(n):
        y = NARROW_TOP + i * NARROW_ROW
        cells = []
        for c in range(n):
            cells.append(
                _cell(c, NARROW_CELLS_X + c * NARROW_CELL_STEP, y, NARROW_CELL_H, held[i][c], n, receives.get(i) == c)
            )
        rows.append(NarrowRow(i, y, tuple(cells)))
    arrows = []
    for sender, receiver, chunk in moves:
        x = NARROW_CELLS_X + chunk * NARROW_CELL_STEP + NARROW_CELL_W / 2
        start_y = NARROW_TOP + sender * NARROW_ROW + NARROW_CELL_H + 2
        end_y = NARROW_TOP + receiver * NARROW_ROW - 3
        if receiver == sender + 1:
            arrows.append(f"{px(x):g},{px(start_y):g} {px(x):g},{px(end_y):g}")
        else:  # back from the last GPU to GPU 0: down, along the left side, in above the column headers
            below, above, side = start_y + 10, NARROW_TOP - 24, NARROW_CELLS_X - 8
            arrows.append(
                " ".join(
                    f"{px(a):g},{px(b):g}"
                    for a, b in ((x, start_y), (x, below), (side, below), (side, above), (x, above), (x, end_y))
                )
            )
    headers = tuple((px(NARROW_CELLS_X + c * NARROW_CELL_STEP + NARROW_CELL_W / 2), f"c{c}") for c in range(n))
    timeline_y = NARROW_TOP + n * NARROW_ROW + 30
    timeline, rs_x, ag_x = _timeline(n, step, 1.0, NARROW_WIDTH - 1.0)
    return NarrowRing(tuple(rows), headers, tuple(arrows), timeline, timeline_y, rs_x, ag_x, timeline_y + 44)


def _to_box_edge(ux: float, uy: float, box_w: float, box_h: float) -> float:
    """How far a line from a GPU box's centre, in the unit direction (ux, uy), runs before it leaves the box: an
    arrow starts and ends that far (plus a gap) from the centres, so its head is never under a box (at 5 GPUs the
    bottom edge is level and the boxes are wider than tall)."""
    along_x = (box_w / 2) / abs(ux) if ux else math.inf
    along_y = (box_h / 2) / abs(uy) if uy else math.inf
    return min(along_x, along_y)


def build(form: fields.Form) -> View:
    n = fields.whole(form, "gpus", MIN_GPUS, MAX_GPUS)
    size_bytes, size_label = _size(form)
    system_id = fields.choice(form, "system", SYSTEM_IDS)
    steps = 2 * (n - 1)
    # A step number belongs to the ring it was drawn for: a new ring size starts again at step 0.
    step = fields.whole(form, "step", 0, steps) if form["drawn"] == str(n) else 0
    try:
        result = simulate_collective(
            CollectiveQuery("all_reduce", system=system_id, gpus_per_node=n, algorithm="ring", mode="ideal"), size_bytes
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
    box_h = 62
    gpus = []
    centers = []
    for i in range(n):
        angle = -math.pi / 2 + 2 * math.pi * i / n
        cx, cy = CENTER_X + RADIUS * math.cos(angle), CENTER_Y + RADIUS * math.sin(angle)
        centers.append((cx, cy))
        x, y = cx - box_w / 2, cy - box_h / 2
        cells = []
        for c in range(n):
            cell_x = x + (box_w - n * (CELL_W + 1) + 1) / 2 + c * (CELL_W + 1)
            cells.append(_cell(c, cell_x, y + 24, CELL_H, held[i][c], n, receives.get(i) == c))
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
        shrink = _to_box_edge(ux, uy, box_w, box_h) + 6
        ring.append((px(x1 + ux * shrink), px(y1 + uy * shrink), px(x2 - ux * shrink), px(y2 - uy * shrink)))
    for sender, receiver, chunk in moves:
        (x1, y1), (x2, y2) = centers[sender], centers[receiver]
        length = math.hypot(x2 - x1, y2 - y1)
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        nx, ny = uy, -ux  # to the left of the direction of travel: outward on a clockwise ring
        shift = 7.0
        shrink = _to_box_edge(ux, uy, box_w, box_h) + 8
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

    timeline, rs_label_x, ag_label_x = _timeline(n, step, 24.0, WIDTH - 24.0)
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
        timeline=timeline,
        timeline_y=TIMELINE_Y,
        rs_label_x=rs_label_x,
        ag_label_x=ag_label_x,
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
        narrow=_narrow(n, step, held, moves),
    )


def state(form: fields.Form, view: object) -> dict[str, str]:
    """A new ring size starts again at step 0: the address says which step of which ring is drawn."""
    if not isinstance(view, View):
        return dict(form)
    return dict(form) | {
        "size": fields.canonical_number(form["size"]),
        "step": str(view.step),
        "drawn": str(view.gpus_count),
    }
