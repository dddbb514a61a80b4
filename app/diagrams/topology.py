"""topology: how GPU A reaches GPU B in four machines, hop by hop, and which hop limits the transfer.

Each layout is plain geometry (boxes and edges); the path is a list of hops whose per-direction bandwidths
come from the simulator's link presets. The hops' names are words, so they are kinds and numbers here and
become text in the learner's language in the template.

Every machine is drawn twice: ``wide`` (720 units across) and ``narrow`` for phones (300 units: the PCIe server
and the DGX board turned on their side, the NVL72 rack narrower, and of the fat tree's four nodes the two the
path touches). The transfer is bounded by its slowest hop: when one hop is slower than the rest it is the
bottleneck; when several share the lowest rate, the view says that they are all equal instead of picking one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from app.diagrams import fields
from app.diagrams.svg import px, text_width
from app.diagrams.units import exact
from app.i18n import _
from app.simulator import LINKS, SYSTEMS

ID = "topology"
TOPOLOGIES = ("pcie-gen5-8gpu", "dgx-h100", "gb200-nvl72", "rail-fat-tree")
FAT_TREE_NODES = 4
FAT_TREE_SPINES = 2
DEFAULT_PAIRS: dict[str, tuple[int, int]] = {
    "pcie-gen5-8gpu": (0, 5),
    "dgx-h100": (0, 5),
    "gb200-nvl72": (3, 60),
    "rail-fat-tree": (2, 29),
}
DEFAULTS: dict[str, str] = {"topology": "dgx-h100", "gpu_a": "0", "gpu_b": "5", "drawn": "dgx-h100"}
LABELS: dict[str, str] = {
    "topology": _("Machine"),
    "gpu_a": _("GPU A (sender)"),
    "gpu_b": _("GPU B (receiver)"),
    "drawn": _("Machine"),
}
WIDE, NARROW = 720, 300
# The font size of the drawings' text in user units (diagrams.css: .dg-svg text, .dg-svg-narrow text).
FONT_SIZE = {"wide": 13.0, "narrow": 14.5}
# A label keeps this far from its box's edges: the thickest outline (3 units, for GPU A and B) is drawn half inside.
LABEL_PADDING = 1.5
BADGE_RADIUS = 9
# How far a line of text reaches above and below its baseline, in em.
ASCENT, DESCENT = 0.9, 0.22

# What a box says, by kind, with the box's number for %(number)d: product names and "GPU 3" stay in Latin script.
BOX_LABELS: dict[str, str] = {
    "gpu": "GPU %(number)d",
    "cpu": "CPU %(number)d",
    "pcie-switch": _("PCIe switch"),
    "nvswitch": "NVSwitch",
    "tray": _("Tray %(number)d"),
    "switch-tray": _("NVLink switch tray %(number)d"),
    "node": _("Node %(number)d"),
    "leaf": _("Leaf %(number)d"),
    "spine": _("Spine %(number)d"),
}
NUMBER_ONLY = "%(number)d"  # a GPU in a rack or a node of the fat tree, a leaf on a phone: the number alone


@dataclass(frozen=True, slots=True)
class Label:
    message: str  # a BOX_LABELS message, translated where it is shown
    x: float
    y: float  # the baseline
    anchor: str  # "start" or "middle"


@dataclass(frozen=True, slots=True)
class Badge:
    cx: float
    cy: float
    r: float


@dataclass(frozen=True, slots=True)
class Box:
    key: str
    kind: str  # gpu, cpu, pcie-switch, nvswitch, tray, switch-tray, node, leaf, spine
    number: int
    x: float
    y: float
    w: float
    h: float
    role: str = ""  # "a", "b" or "path"
    label: Label | None = None

    @property
    def cx(self) -> float:
        return px(self.x + self.w / 2)

    @property
    def cy(self) -> float:
        return px(self.y + self.h / 2)

    @property
    def badge(self) -> Badge:
        """The A or B badge: centred on the top right corner, and on a cell too narrow for the badge beside the
        number (a fat-tree node's GPU) high enough to leave the number whole."""
        rise = BADGE_RADIUS * 2 / 3 if self.w < 2 * BADGE_RADIUS + 12 else 0
        return Badge(px(self.x + self.w), px(self.y - rise), BADGE_RADIUS)


@dataclass(frozen=True, slots=True)
class Edge:
    points: str  # an SVG polyline
    kind: str  # pcie, nvlink, network, socket
    on_path: bool = False


@dataclass(frozen=True, slots=True)
class Endpoint:
    kind: str  # gpu, cpu, pcie-switch, nvswitch, switch-trays, nic, leaf, spine
    number: int = 0
    node: int = 0  # 1-based node of the fat tree, 0 elsewhere


@dataclass(frozen=True, slots=True)
class Hop:
    number: int
    source: Endpoint
    target: Endpoint
    link_id: str  # a LINKS id, or "socket" for the CPU-to-CPU link the presets do not model
    link_name: str
    per_direction_GBps: float | None

    @property
    def per_direction_label(self) -> str:
        return exact(self.per_direction_GBps) if self.per_direction_GBps is not None else ""


@dataclass(frozen=True, slots=True)
class GpuOption:
    value: int
    number: int  # the GPU's number inside its node or rack
    node: int  # 1-based node (fat tree) or compute tray (NVL72); 0 for single servers


@dataclass(frozen=True, slots=True)
class Layout:
    name: str  # "wide" or "narrow"
    width: int
    height: float
    boxes: tuple[Box, ...]
    edges: tuple[Edge, ...]
    path: tuple[Edge, ...]
    shown_nodes: tuple[int, ...] = ()  # 1-based fat-tree nodes drawn, when not all of them are


@dataclass(frozen=True, slots=True)
class View:
    topology: str
    layouts: tuple[Layout, ...]
    hops: tuple[Hop, ...]
    gpu_options: tuple[GpuOption, ...]
    gpu_a: GpuOption
    gpu_b: GpuOption
    bottleneck: Hop | None  # the first of the slowest hops
    limiting: tuple[Hop, ...]  # every hop at the lowest known rate: one is a bottleneck, several are all equal
    unknown: tuple[Hop, ...]  # hops the presets give no rate for (the CPU-to-CPU link)
    nccl_path: str  # what nvidia-smi topo -m / NCCL call this path: PIX, PHB, SYS, NV18, NET ...
    system_name: str

    @property
    def wide(self) -> Layout:
        return self.layouts[0]

    @property
    def all_equal(self) -> bool:
        """Every hop with a known rate runs at the lowest one."""
        return len(self.limiting) > 1 and len(self.limiting) == len(self.hops) - len(self.unknown)

    @property
    def limiting_numbers(self) -> str:
        """The limiting hops' numbers as a reader writes them: "2–5", or "2, 4" when they are not in a row."""
        numbers = [hop.number for hop in self.limiting]
        if numbers and numbers == list(range(numbers[0], numbers[-1] + 1)):
            return f"{numbers[0]}–{numbers[-1]}"
        return ", ".join(str(number) for number in numbers)


def _link(link_id: str) -> tuple[str, float]:
    link = LINKS[link_id]
    return link.name, link.per_direction_GBps


def _hops(steps: list[tuple[Endpoint, Endpoint, str]]) -> tuple[Hop, ...]:
    hops = []
    for number, (source, target, link_id) in enumerate(steps, start=1):
        if link_id == "socket":
            hops.append(Hop(number, source, target, link_id, "UPI / xGMI", None))
        else:
            name, bandwidth = _link(link_id)
            hops.append(Hop(number, source, target, link_id, name, bandwidth))
    return tuple(hops)


def _line(*coordinates: tuple[float, float]) -> str:
    return " ".join(f"{px(x):g},{px(y):g}" for x, y in coordinates)


def _toward(edge: Edge) -> Edge:
    """The same edge drawn as part of the path, from its last point to its first."""
    return Edge(" ".join(reversed(edge.points.split(" "))), edge.kind, True)


def _along(edge: Edge) -> Edge:
    return Edge(edge.points, edge.kind, True)


def _mark(boxes: list[Box], keys: set[str], a: str, b: str) -> list[Box]:
    marked = []
    for box in boxes:
        role = "a" if box.key == a else "b" if box.key == b else "path" if box.key in keys else ""
        marked.append(dataclasses.replace(box, role=role))
    return marked


def _label(box: Box, topology: str, narrow: bool) -> Label:
    """Where a box's name goes: a node's and a tray's at the left, the rest in the middle."""
    if box.kind == "node":
        return Label(BOX_LABELS["node"], px(box.x + 8), px(box.y + 18), "start")
    if box.kind in ("tray", "switch-tray"):
        return Label(BOX_LABELS[box.kind], px(box.x + 6), px(box.y + box.h - 5), "start")
    number_only = (box.kind == "gpu" and topology in ("rail-fat-tree", "gb200-nvl72")) or (
        box.kind == "leaf" and narrow
    )
    baseline = box.y + box.h - 5 if box.kind == "gpu" and topology == "gb200-nvl72" else box.cy + 5
    return Label(NUMBER_ONLY if number_only else BOX_LABELS[box.kind], box.cx, px(baseline), "middle")


def label_text(box: Box, translate: Callable[[str], str]) -> str:
    """The box's label in the language of ``translate`` (a catalog's gettext), as the template writes it."""
    assert box.label is not None
    return translate(box.label.message) % {"number": box.number}


def label_fits(box: Box, text: str, font_size: float) -> bool:
    """Whether ``text`` drawn at the box's label position stays inside the box, by the widest estimate."""
    assert box.label is not None
    width = text_width(text, font_size)
    left = box.label.x if box.label.anchor == "start" else box.label.x - width / 2
    return (
        left >= box.x + LABEL_PADDING
        and left + width <= box.x + box.w - LABEL_PADDING
        and box.label.y - ASCENT * font_size >= box.y
        and box.label.y + DESCENT * font_size <= box.y + box.h
    )


Geometry = tuple[list[Box], list[Edge], list[Edge], float]


# --- 8-GPU PCIe server: two CPU sockets, two PCIe switches per socket, two GPUs per switch -----------------
# Edges in a fixed order, whatever the drawing: [0] the socket link, [1 + s] switch s to its CPU, [5 + g] GPU g
# to its switch, so that one path rule serves both drawings.


def _pcie_steps(a: int, b: int) -> tuple[list[tuple[Endpoint, Endpoint, str]], str, list[tuple[int, bool]]]:
    """The hops from GPU a to GPU b, NCCL's name for the path, and the edges it takes as (index, reversed)."""
    sa, sb, ca, cb = a // 2, b // 2, a // 4, b // 4
    gpu_a, gpu_b = Endpoint("gpu", a), Endpoint("gpu", b)
    switch_a, switch_b = Endpoint("pcie-switch", sa), Endpoint("pcie-switch", sb)
    edges = [(5 + a, False)]
    if sa == sb:
        steps = [(gpu_a, switch_a, "pcie5"), (switch_a, gpu_b, "pcie5")]
        kind = "PIX"
    elif ca == cb:
        steps = [
            (gpu_a, switch_a, "pcie5"),
            (switch_a, Endpoint("cpu", ca), "pcie5"),
            (Endpoint("cpu", ca), switch_b, "pcie5"),
            (switch_b, gpu_b, "pcie5"),
        ]
        edges += [(1 + sa, False), (1 + sb, True)]
        kind = "PHB"
    else:
        steps = [
            (gpu_a, switch_a, "pcie5"),
            (switch_a, Endpoint("cpu", ca), "pcie5"),
            (Endpoint("cpu", ca), Endpoint("cpu", cb), "socket"),
            (Endpoint("cpu", cb), switch_b, "pcie5"),
            (switch_b, gpu_b, "pcie5"),
        ]
        edges += [(1 + sa, False), (0, ca != 0), (1 + sb, True)]
        kind = "SYS"
    edges.append((5 + b, True))
    return steps, kind, edges


def _pcie_wide() -> tuple[list[Box], list[Edge], float]:
    switch_x = (100, 270, 450, 620)
    cpus = [Box(f"cpu{c}", "cpu", c, (185, 535)[c] - 80, 28, 160, 44) for c in range(2)]
    switches = [Box(f"sw{s}", "pcie-switch", s, switch_x[s] - 62, 128, 124, 38) for s in range(4)]
    gpus = [
        Box(f"gpu{g}", "gpu", g, switch_x[g // 2] + (-38 if g % 2 == 0 else 38) - 32, 228, 64, 52) for g in range(8)
    ]
    edges: list[Edge] = [Edge(_line((cpus[0].x + cpus[0].w, 50), (cpus[1].x, 50)), "socket")]
    for s, switch in enumerate(switches):
        cpu = cpus[s // 2]
        edges.append(Edge(_line((switch.cx, switch.y), (cpu.cx + (-40 if s % 2 == 0 else 40), cpu.y + cpu.h)), "pcie"))
    for g, gpu in enumerate(gpus):
        switch = switches[g // 2]
        edges.append(
            Edge(_line((gpu.cx, gpu.y), (switch.cx + (-20 if g % 2 == 0 else 20), switch.y + switch.h)), "pcie")
        )
    return [*cpus, *switches, *gpus], edges, 320


def _pcie_narrow() -> tuple[list[Box], list[Edge], float]:
    """On its side: CPUs on the left, PCIe switches in the middle, GPUs in a column on the right."""
    row, socket_gap = 46, 22

    def gpu_y(g: int) -> float:
        return 12 + g * row + (socket_gap if g >= 4 else 0)

    gpus = [Box(f"gpu{g}", "gpu", g, 208, gpu_y(g), 82, 38) for g in range(8)]
    switches = [
        Box(f"sw{s}", "pcie-switch", s, 78, (gpus[2 * s].cy + gpus[2 * s + 1].cy) / 2 - 19, 112, 38) for s in range(4)
    ]
    cpus = [
        Box(f"cpu{c}", "cpu", c, 2, (switches[2 * c].cy + switches[2 * c + 1].cy) / 2 - 24, 58, 48) for c in range(2)
    ]
    socket_x = cpus[0].cx
    edges: list[Edge] = [Edge(_line((socket_x, cpus[0].y + cpus[0].h), (socket_x, cpus[1].y)), "socket")]
    for s, switch in enumerate(switches):
        cpu = cpus[s // 2]
        edges.append(Edge(_line((switch.x, switch.cy), (cpu.x + cpu.w, cpu.cy + (-12 if s % 2 == 0 else 12))), "pcie"))
    for g, gpu in enumerate(gpus):
        switch = switches[g // 2]
        edges.append(Edge(_line((gpu.x, gpu.cy), (switch.x + switch.w, switch.cy + (-9 if g % 2 == 0 else 9))), "pcie"))
    return [*cpus, *switches, *gpus], edges, gpu_y(7) + row


def _pcie_server(a: int, b: int, narrow: bool) -> tuple[Geometry, tuple[Hop, ...], str]:
    boxes, edges, height = _pcie_narrow() if narrow else _pcie_wide()
    if a == b:
        return (boxes, edges, [], height), (), ""
    steps, kind, taken = _pcie_steps(a, b)
    path = [_toward(edges[i]) if backwards else _along(edges[i]) for i, backwards in taken]
    return (boxes, edges, path, height), _hops(steps), kind


# --- DGX H100: eight GPUs, each wired to all four NVSwitch chips ---------------------------------------


def _nvswitch_board(a: int, b: int, narrow: bool) -> tuple[Geometry, tuple[Hop, ...], str]:
    if narrow:  # on its side: the GPUs in a column, the four chips in a column beside them
        gpus = [Box(f"gpu{g}", "gpu", g, 2, 12 + g * 44, 88, 36) for g in range(8)]
        switches = [Box(f"nvs{s}", "nvswitch", s, 182, 26 + s * 86, 116, 40) for s in range(4)]
        height = 12 + 8 * 44 + 4
    else:
        gpu_x = (120, 280, 440, 600)
        gpus = [Box(f"gpu{g}", "gpu", g, gpu_x[g % 4] - 50, 24 if g < 4 else 252, 100, 48) for g in range(8)]
        switches = [Box(f"nvs{s}", "nvswitch", s, 100 + s * 140, 142, 100, 38) for s in range(4)]
        height = 320
    edges: list[Edge] = []
    path: list[Edge] = []
    for g, gpu in enumerate(gpus):
        for s, switch in enumerate(switches):
            if narrow:
                start = (gpu.x + gpu.w, gpu.y + 6 + s * 8)
                end = (switch.x, switch.y + 5 + g * 4)
            else:
                top = g < 4
                start = (gpu.x + 20 + s * 20, gpu.y + gpu.h if top else gpu.y)
                end = (switch.x + 14 + g % 4 * 24, switch.y if top else switch.y + switch.h)
            edge = Edge(_line(start, end), "nvlink")
            edges.append(edge)
            if a != b and g == a:
                path.append(_along(edge))
            elif a != b and g == b:
                path.append(_toward(edge))
    boxes = [*gpus, *switches]
    if a == b:
        return (boxes, edges, [], height), (), ""
    chips = Endpoint("nvswitch", 4)
    steps = [(Endpoint("gpu", a), chips, "nvlink4"), (chips, Endpoint("gpu", b), "nvlink4")]
    return (boxes, edges, path, height), _hops(steps), f"NV{LINKS['nvlink4'].links_per_gpu}"


# --- GB200 NVL72: 10 compute trays, 9 NVLink switch trays, 8 compute trays, joined by the cable spine --------

NVL72_TRAY_GPUS = 4


def _nvl72(a: int, b: int, narrow: bool) -> tuple[Geometry, tuple[Hop, ...], str]:
    row, gap, top = 20, 3, 12
    spine_x, tray_x, tray_w = (8, 18, 78) if narrow else (28, 40, 96)
    cell_x, cell_step, cell_w = (100, 45, 41) if narrow else (142, 62, 58)
    order = (
        [("tray", t) for t in range(10)] + [("switch-tray", s) for s in range(9)] + [("tray", t) for t in range(10, 18)]
    )
    gpus_end = cell_x + (NVL72_TRAY_GPUS - 1) * cell_step + cell_w
    boxes: list[Box] = []
    edges: list[Edge] = []
    tray_y: dict[int, float] = {}
    switch_y: list[float] = []
    for index, (kind, number) in enumerate(order):
        y = top + index * (row + gap)
        if kind == "tray":
            tray_y[number] = y
            boxes.append(Box(f"tray{number}", "tray", number + 1, tray_x, y, tray_w, row))
            for slot in range(NVL72_TRAY_GPUS):
                gpu = number * NVL72_TRAY_GPUS + slot
                boxes.append(Box(f"gpu{gpu}", "gpu", gpu, cell_x + slot * cell_step, y, cell_w, row))
        else:
            switch_y.append(y)
            boxes.append(Box(f"st{number}", "switch-tray", number + 1, tray_x, y, gpus_end - tray_x, row))
    bottom = top + len(order) * (row + gap)
    # The NVLink cable spine at the back of the rack reaches every tray.
    edges.append(Edge(_line((spine_x, top + row / 2), (spine_x, bottom - gap - row / 2)), "nvlink"))
    for stub_y in (*tray_y.values(), *switch_y):
        edges.append(Edge(_line((spine_x, stub_y + row / 2), (tray_x, stub_y + row / 2)), "nvlink"))
    height = bottom + 6
    if a == b:
        return (boxes, edges, [], height), (), ""
    switch_mid = (switch_y[0] + switch_y[-1] + row) / 2
    ya, yb = tray_y[a // NVL72_TRAY_GPUS] + row / 2, tray_y[b // NVL72_TRAY_GPUS] + row / 2
    # Leave and enter at the tray's edge, so the path never runs over the other GPUs of the tray.
    out_x, in_x = gpus_end + (7 if narrow else 18), gpus_end + (15 if narrow else 40)
    path = [
        Edge(
            _line((gpus_end, ya), (out_x, ya), (out_x, switch_mid - 4), (gpus_end + 2, switch_mid - 4)), "nvlink", True
        ),
        Edge(
            _line((gpus_end + 2, switch_mid + 4), (in_x, switch_mid + 4), (in_x, yb), (gpus_end + 2, yb)),
            "nvlink",
            True,
        ),
    ]
    trays = Endpoint("switch-trays", 9)
    steps = [(Endpoint("gpu", a), trays, "nvlink5"), (trays, Endpoint("gpu", b), "nvlink5")]
    return (boxes, edges, path, height), _hops(steps), f"NV{LINKS['nvlink5'].links_per_gpu}"


# --- Four DGX H100 on a rail-optimised fat tree: GPU g of every node on leaf switch g (rail g) -------------


def fat_tree_nodes_shown(a: int, b: int) -> tuple[int, ...]:
    """The two nodes a narrow drawing shows (0-based): the path's, or its one node and the next."""
    per_node = SYSTEMS["dgx-h100"].gpus_per_node
    node_a, node_b = a // per_node, b // per_node
    if node_a == node_b:
        node_b = node_a + 1 if node_a + 1 < FAT_TREE_NODES else node_a - 1
    return tuple(sorted({node_a, node_b}))


def _fat_tree(a: int, b: int, narrow: bool) -> tuple[Geometry, tuple[Hop, ...], str]:
    per_node = SYSTEMS["dgx-h100"].gpus_per_node
    nodes = fat_tree_nodes_shown(a, b) if narrow else tuple(range(FAT_TREE_NODES))
    node_w, node_step, cell_w, cell_step = (146, 150, 15, 16.5) if narrow else (168, 176, 16, 19.25)
    boxes: list[Box] = []
    edges: list[Edge] = []
    gpu_bottom: dict[int, tuple[float, float]] = {}
    stub: dict[int, Edge] = {}
    for column, node in enumerate(nodes):
        x = (2 if narrow else 12) + column * node_step
        boxes.append(Box(f"node{node}", "node", node + 1, x, 14, node_w, 104))
        boxes.append(Box(f"nvs{node}", "nvswitch", node, x + 6, 42, node_w - 12, 20))
        for g in range(per_node):
            gpu = node * per_node + g
            cell = Box(f"gpu{gpu}", "gpu", g, x + 6 + g * cell_step, 80, cell_w, 30)
            boxes.append(cell)
            stub[gpu] = Edge(_line((cell.cx, cell.y), (cell.cx, 62)), "nvlink")
            edges.append(stub[gpu])
            gpu_bottom[gpu] = (cell.cx, cell.y + cell.h)
    if narrow:
        leaves = [Box(f"leaf{r}", "leaf", r, 2 + r * 37.25, 206, 33, 30) for r in range(per_node)]
        spines = [Box(f"spine{s}", "spine", s, 20 + s * 150, 318, 110, 32) for s in range(FAT_TREE_SPINES)]
    else:
        leaves = [Box(f"leaf{r}", "leaf", r, 14 + r * 89, 206, 72, 30) for r in range(per_node)]
        spines = [Box(f"spine{s}", "spine", s, 190 + s * 200, 318, 140, 32) for s in range(FAT_TREE_SPINES)]
    boxes += [*leaves, *spines]
    down: dict[int, Edge] = {}
    for gpu, (gpu_x, gpu_y) in gpu_bottom.items():
        leaf = leaves[gpu % per_node]
        down[gpu] = Edge(_line((gpu_x, gpu_y), (leaf.cx, leaf.y)), "network")
        edges.append(down[gpu])
    up: dict[tuple[int, int], Edge] = {}
    spread = 5 if narrow else 14
    for r, leaf in enumerate(leaves):
        for s, spine in enumerate(spines):
            target = (spine.cx + (r - (per_node - 1) / 2) * spread, spine.y)
            up[(r, s)] = Edge(_line((leaf.cx, leaf.y + leaf.h), target), "network")
            edges.append(up[(r, s)])
    height = 414 if narrow else 368  # narrow: two lines under the spines name the leaves and the nodes drawn
    if a == b:
        return (boxes, edges, [], height), (), ""
    node_a, rail_a, node_b, rail_b = a // per_node + 1, a % per_node, b // per_node + 1, b % per_node
    gpu_a, gpu_b = Endpoint("gpu", rail_a, node_a), Endpoint("gpu", rail_b, node_b)
    if node_a == node_b:
        nvswitch = Endpoint("nvswitch", 4, node_a)
        path = [_along(stub[a]), _toward(stub[b])]
        steps = [(gpu_a, nvswitch, "nvlink4"), (nvswitch, gpu_b, "nvlink4")]
        return (boxes, edges, path, height), _hops(steps), f"NV{LINKS['nvlink4'].links_per_gpu}"
    nic_a, nic_b = Endpoint("nic", rail_a, node_a), Endpoint("nic", rail_b, node_b)
    leaf_a, leaf_b = Endpoint("leaf", rail_a), Endpoint("leaf", rail_b)
    path = [_along(down[a])]
    steps = [(gpu_a, nic_a, "pcie5"), (nic_a, leaf_a, "ib-ndr")]
    if rail_a != rail_b:
        chosen = (rail_a + rail_b) % FAT_TREE_SPINES  # one of the equal-cost spines, as ECMP would pick
        via = Endpoint("spine", chosen)
        steps += [(leaf_a, via, "ib-ndr"), (via, leaf_b, "ib-ndr")]
        path += [_along(up[(rail_a, chosen)]), _toward(up[(rail_b, chosen)])]
    steps += [(leaf_b, nic_b, "ib-ndr"), (nic_b, gpu_b, "pcie5")]
    path.append(_toward(down[b]))
    return (boxes, edges, path, height), _hops(steps), "NET"


_LAYOUTS: dict[str, tuple[int, Callable[[int, int, bool], tuple[Geometry, tuple[Hop, ...], str]]]] = {
    "pcie-gen5-8gpu": (8, _pcie_server),
    "dgx-h100": (8, _nvswitch_board),
    "gb200-nvl72": (72, _nvl72),
    "rail-fat-tree": (FAT_TREE_NODES * 8, _fat_tree),
}


def gpu_options(topology: str) -> tuple[GpuOption, ...]:
    count = _LAYOUTS[topology][0]
    if topology == "rail-fat-tree":
        return tuple(GpuOption(g, g % 8, g // 8 + 1) for g in range(count))
    if topology == "gb200-nvl72":
        return tuple(GpuOption(g, g, g // NVL72_TRAY_GPUS + 1) for g in range(count))
    return tuple(GpuOption(g, g, 0) for g in range(count))


def _box_keys(endpoint: Endpoint, topology: str) -> set[str]:
    if endpoint.kind == "nvswitch":
        return {f"nvs{endpoint.node - 1}"} if topology == "rail-fat-tree" else {f"nvs{s}" for s in range(4)}
    if endpoint.kind == "switch-trays":
        return {f"st{s}" for s in range(9)}
    prefixes = {"pcie-switch": "sw", "cpu": "cpu", "leaf": "leaf", "spine": "spine"}
    return {f"{prefixes[endpoint.kind]}{endpoint.number}"} if endpoint.kind in prefixes else set()


def _gpus(form: fields.Form, topology: str) -> tuple[int, int]:
    if form["drawn"] != topology:
        # The learner just picked another machine: its GPU lists were drawn for the previous one, so start
        # from this machine's example pair instead of rejecting GPU numbers it may not have.
        return DEFAULT_PAIRS[topology]
    count = _LAYOUTS[topology][0]
    return fields.whole(form, "gpu_a", 0, count - 1), fields.whole(form, "gpu_b", 0, count - 1)


def build(form: fields.Form) -> View:
    topology = fields.choice(form, "topology", TOPOLOGIES)
    a, b = _gpus(form, topology)
    layout = _LAYOUTS[topology][1]
    layouts = []
    hops: tuple[Hop, ...] = ()
    nccl_path = ""
    for name, width in (("wide", WIDE), ("narrow", NARROW)):
        (boxes, edges, path, height), hops, nccl_path = layout(a, b, name == "narrow")
        on_path = {key for hop in hops for end in (hop.source, hop.target) for key in _box_keys(end, topology)}
        shown = fat_tree_nodes_shown(a, b) if topology == "rail-fat-tree" and name == "narrow" else ()
        labelled = [dataclasses.replace(box, label=_label(box, topology, name == "narrow")) for box in boxes]
        layouts.append(
            Layout(
                name,
                width,
                px(height),
                tuple(_mark(labelled, on_path, f"gpu{a}", f"gpu{b}")),
                tuple(edges),
                tuple(path),
                tuple(node + 1 for node in shown),
            )
        )
    options = gpu_options(topology)
    known = [hop for hop in hops if hop.per_direction_GBps is not None]
    slowest = min((hop.per_direction_GBps or 0.0 for hop in known), default=None)
    limiting = tuple(hop for hop in known if hop.per_direction_GBps == slowest)
    system = SYSTEMS["dgx-h100" if topology == "rail-fat-tree" else topology]
    return View(
        topology=topology,
        layouts=tuple(layouts),
        hops=hops,
        gpu_options=options,
        gpu_a=options[a],
        gpu_b=options[b],
        bottleneck=limiting[0] if limiting else None,
        limiting=limiting,
        unknown=tuple(hop for hop in hops if hop.per_direction_GBps is None),
        nccl_path=nccl_path,
        system_name=system.name,
    )


def state(form: fields.Form, view: object) -> dict[str, str]:
    """A new machine starts from its example pair: the address says which GPUs are drawn, for which machine."""
    view = view if isinstance(view, View) else build(form)
    return {
        "topology": view.topology,
        "gpu_a": str(view.gpu_a.value),
        "gpu_b": str(view.gpu_b.value),
        "drawn": view.topology,
    }
