"""link-compare: per-direction bandwidth of every link preset, and the time each needs to move a buffer.

Bars are the per-direction line rate (what a one-way transfer gets); for PCIe and NVLink, whose headlines add
both directions, a hatched bar shows that headline behind it. Network links are quoted in Gb/s, so their line rate
in bits is printed next to the GB/s figure. Every bar carries its value as text, so a bar one pixel long on the
linear scale (InfiniBand EDR next to NVLink 5) still reads.

Two layouts of the same numbers: ``wide`` (one row per link: name, bar and value, time in a column on the right)
and ``narrow`` for phones (name and time on one line, the bar under them across the whole width, the values
under the bar). The page shows one of them by the width it has (diagrams.css).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.diagrams import fields
from app.diagrams.svg import Laid, LinearScale, LogScale, Tick, nice_max, px
from app.diagrams.units import GiB, MiB, TiB, binary_size, exact, format_seconds, significant
from app.i18n import _
from app.simulator import LINKS, transfer_time_s

ID = "link-compare"
UNITS: dict[str, int] = {"GiB": GiB, "GB": 10**9, "MiB": MiB, "MB": 10**6}
SCALES = ("linear", "log")
KINDS = ("host", "scale-up", "scale-out")
DEFAULTS: dict[str, str] = {"size": "1", "unit": "GiB", "scale": "linear"}
LABELS: dict[str, str] = {"size": _("Buffer to move"), "unit": _("Unit"), "scale": _("Scale")}
MAX_BYTES = TiB
LIMITS: dict[str, object] = {"size": fields.tebibytes(MAX_BYTES)}
LOG_RANGE_GBPS = (10.0, 2000.0)


@dataclass(frozen=True, slots=True)
class Frame:
    """Where one layout puts things, in SVG user units."""

    name: str  # "wide" or "narrow"
    width: int
    top: float  # the first group's header
    group_header: float
    row: float
    bar_start: float
    bar_end: float
    bar_offset: float  # from the row's top to the bar's
    bar_height: float
    label_end: float  # wide: the names end here (right-aligned)
    time_end: float


WIDE = Frame("wide", 720, 40, 30, 42, 168, 478, 7, 15, 160, 712)
NARROW = Frame("narrow", 300, 44, 34, 62, 1, 298, 22, 11, 0, 298)


@dataclass(frozen=True, slots=True)
class Row:
    link_id: str
    name: str
    kind: str
    per_direction_GBps: float
    bidirectional_GBps: float
    line_rate_Gbps: float | None
    quoted_both_ways: bool  # vendors headline the sum of both directions
    time_s: float
    per_direction_label: str
    both_label: str
    line_rate_label: str
    time_label: str


@dataclass(frozen=True, slots=True)
class DrawnRow:
    row: Row
    y: float
    bar_width: float
    both_width: float
    value_x: float  # wide: where the value label starts, just past the longer bar


@dataclass(frozen=True, slots=True)
class DrawnGroup:
    kind: str
    y: float
    rows: tuple[DrawnRow, ...]


@dataclass(frozen=True, slots=True)
class Layout(Laid):
    frame: Frame
    height: float
    groups: tuple[DrawnGroup, ...]
    ticks: tuple[Tick, ...]
    plot_top: float
    plot_bottom: float


@dataclass(frozen=True, slots=True)
class View:
    scale: str
    size_bytes: int
    size_label: str  # as the learner typed it, e.g. "1 GiB"
    size_bytes_label: str
    rows: tuple[Row, ...]
    layouts: tuple[Layout, ...]
    fastest: Row
    slowest: Row

    @property
    def wide(self) -> Layout:
        return self.layouts[0]


def short_name(name: str) -> str:
    """'NVLink 4 (Hopper H100, H200)' -> 'NVLink 4': the products are in the data table."""
    return name.split(" (")[0]


def _layout(frame: Frame, rows: list[Row], scale_name: str) -> Layout:
    largest = max(row.bidirectional_GBps for row in rows)
    scale: LinearScale | LogScale
    if scale_name == "log":
        scale = LogScale(*LOG_RANGE_GBPS, frame.bar_start, frame.bar_end)
        ticks = [t for t in scale.decade_ticks(lambda v: f"{v:,g}") if t.major]
    else:
        top, step = nice_max(largest, 4 if frame.name == "wide" else 2)
        scale = LinearScale(0.0, top, frame.bar_start, frame.bar_end)
        ticks = scale.ticks(step, lambda v: f"{v:,g}")
    groups = []
    y = frame.top
    for kind in KINDS:
        group_y = y
        y += frame.group_header
        drawn = []
        for row in (row for row in rows if row.kind == kind):
            bar = px(scale(row.per_direction_GBps) - frame.bar_start)
            both = px(scale(row.bidirectional_GBps) - frame.bar_start)
            longer = both if row.quoted_both_ways else bar
            drawn.append(DrawnRow(row, y, bar, both, px(frame.bar_start + longer + 6)))
            y += frame.row
        groups.append(DrawnGroup(kind, group_y, tuple(drawn)))
    return Layout(frame, px(y + 48), tuple(groups), tuple(ticks), frame.top - 6, px(y + 2))


def build(form: fields.Form) -> View:
    size_bytes, size, unit = fields.size_in_bytes(form, UNITS, MAX_BYTES)
    scale_name = fields.choice(form, "scale", SCALES)
    links = sorted(LINKS.values(), key=lambda link: (KINDS.index(link.kind), link.per_direction_GBps, link.year))
    rows = []
    for link in links:
        time_s = transfer_time_s(size_bytes, link.per_direction_GBps)
        rows.append(
            Row(
                link_id=link.id,
                name=short_name(link.name),
                kind=link.kind,
                per_direction_GBps=link.per_direction_GBps,
                bidirectional_GBps=link.bidirectional_GBps,
                line_rate_Gbps=link.line_rate_Gbps,
                quoted_both_ways=link.kind != "scale-out",
                time_s=time_s,
                per_direction_label=exact(link.per_direction_GBps),
                both_label=exact(link.bidirectional_GBps),
                line_rate_label=exact(link.line_rate_Gbps) if link.line_rate_Gbps else "",
                time_label=format_seconds(time_s),
            )
        )
    return View(
        scale=scale_name,
        size_bytes=size_bytes,
        size_label=f"{significant(size, digits=6)} {unit}",
        size_bytes_label=f"{size_bytes:,} B" if size_bytes < 10**15 else binary_size(size_bytes),
        rows=tuple(rows),
        layouts=(_layout(WIDE, rows, scale_name), _layout(NARROW, rows, scale_name)),
        fastest=max(rows, key=lambda row: row.per_direction_GBps),
        slowest=min(rows, key=lambda row: row.per_direction_GBps),
    )


def state(form: fields.Form, view: object) -> dict[str, str]:
    return dict(form) | {"size": fields.canonical_number(form["size"])}
