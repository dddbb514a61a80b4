"""link-compare: per-direction bandwidth of every link preset, and the time each needs to move a buffer.

Bars are the per-direction line rate (what a one-way transfer gets); for PCIe and NVLink, whose headlines add
both directions, an outlined bar shows that headline behind it. Network links are quoted in Gb/s, so their
line rate in bits is printed next to the GB/s figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.simulator import LINKS, transfer_time_s
from app.web.diagrams import fields
from app.web.diagrams.svg import LinearScale, LogScale, Tick, nice_max, px
from app.web.diagrams.units import GiB, MiB, binary_size, exact, format_seconds, significant

ID = "link-compare"
UNITS: dict[str, int] = {"GiB": GiB, "GB": 10**9, "MiB": MiB, "MB": 10**6}
SCALES = ("linear", "log")
KINDS = ("host", "scale-up", "scale-out")
DEFAULTS: dict[str, str] = {"size": "1", "unit": "GiB", "scale": "linear"}
MAX_BYTES = 2**40

WIDTH = 720
LABEL_END = 146
BAR_START = 152
BAR_END = 452
VALUE_X = 462
TIME_END = 712
TOP = 34
GROUP_HEADER = 26
ROW = 32
BAR_HEIGHT = 14


@dataclass(frozen=True, slots=True)
class Row:
    link_id: str
    name: str
    kind: str
    y: float
    per_direction_GBps: float
    bidirectional_GBps: float
    line_rate_Gbps: float | None
    quoted_both_ways: bool  # vendors headline the sum of both directions
    bar_width: float
    both_width: float
    time_s: float
    per_direction_label: str
    both_label: str
    line_rate_label: str
    time_label: str


@dataclass(frozen=True, slots=True)
class Group:
    kind: str
    y: float
    rows: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class View:
    width: int
    height: float
    scale: str
    size_bytes: int
    size_label: str  # as the learner typed it, e.g. "1 GiB"
    size_bytes_label: str
    groups: tuple[Group, ...]
    ticks: tuple[Tick, ...]
    plot_top: float
    plot_bottom: float
    bar_start: int
    bar_end: int
    value_x: int
    time_end: int
    label_end: int
    fastest: Row
    slowest: Row

    @property
    def rows(self) -> tuple[Row, ...]:
        return tuple(row for group in self.groups for row in group.rows)


def short_name(name: str) -> str:
    """'NVLink 4 (Hopper H100, H200)' -> 'NVLink 4': the products are in the data table."""
    return name.split(" (")[0]


def build(form: fields.Form) -> View:
    unit = fields.choice(form, "unit", tuple(UNITS))
    scale_name = fields.choice(form, "scale", SCALES)
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

    links = sorted(LINKS.values(), key=lambda link: (KINDS.index(link.kind), link.per_direction_GBps, link.year))
    largest = max(link.bidirectional_GBps for link in links)
    if scale_name == "log":
        scale: LinearScale | LogScale = LogScale(10.0, 2000.0, BAR_START, BAR_END)
        ticks = LogScale(10.0, 2000.0, BAR_START, BAR_END).decade_ticks(lambda v: f"{v:,g}")
        ticks = [t for t in ticks if t.major or t.value in (20, 50, 200, 500, 2000)]
    else:
        top, step = nice_max(largest, 4)
        scale = LinearScale(0.0, top, BAR_START, BAR_END)
        ticks = LinearScale(0.0, top, BAR_START, BAR_END).ticks(step, lambda v: f"{v:,g}")

    groups = []
    y = TOP
    for kind in KINDS:
        group_y = y
        y += GROUP_HEADER
        rows = []
        for link in (link for link in links if link.kind == kind):
            time_s = transfer_time_s(size_bytes, link.per_direction_GBps)
            rows.append(
                Row(
                    link_id=link.id,
                    name=short_name(link.name),
                    kind=kind,
                    y=y,
                    per_direction_GBps=link.per_direction_GBps,
                    bidirectional_GBps=link.bidirectional_GBps,
                    line_rate_Gbps=link.line_rate_Gbps,
                    quoted_both_ways=kind != "scale-out",
                    bar_width=px(scale(link.per_direction_GBps) - BAR_START),
                    both_width=px(scale(link.bidirectional_GBps) - BAR_START),
                    time_s=time_s,
                    per_direction_label=exact(link.per_direction_GBps),
                    both_label=exact(link.bidirectional_GBps),
                    line_rate_label=exact(link.line_rate_Gbps) if link.line_rate_Gbps else "",
                    time_label=format_seconds(time_s),
                )
            )
            y += ROW
        groups.append(Group(kind, group_y, tuple(rows)))
    all_rows = [row for group in groups for row in group.rows]
    return View(
        width=WIDTH,
        height=y + 42,
        scale=scale_name,
        size_bytes=size_bytes,
        size_label=f"{significant(size, digits=6)} {unit}",
        size_bytes_label=f"{size_bytes:,} B" if size_bytes < 10**15 else binary_size(size_bytes),
        groups=tuple(groups),
        ticks=tuple(ticks),
        plot_top=TOP - 6,
        plot_bottom=y + 2,
        bar_start=BAR_START,
        bar_end=BAR_END,
        value_x=VALUE_X,
        time_end=TIME_END,
        label_end=LABEL_END,
        fastest=max(all_rows, key=lambda row: row.per_direction_GBps),
        slowest=min(all_rows, key=lambda row: row.per_direction_GBps),
    )
