"""topology: how GPU A reaches GPU B in four machines, hop by hop, and which hop limits the transfer.

Each layout is plain geometry (boxes and edges); the path is a list of hops whose per-direction bandwidths
come from the simulator's link presets. The hops' names are words, so they are kinds and numbers here and
become text in the learner's language in the template.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.simulator import LINKS, SYSTEMS
from app.web.diagrams import fields
from app.web.diagrams.svg import px
from app.web.diagrams.units import exact

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
WIDTH = 720


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

    @property
    def cx(self) -> float:
        return px(self.x + self.w / 2)

    @property
    def cy(self) -> float:
        return px(self.y + self.h / 2)


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
class View:
    topology: str
    width: int
    height: float
    boxes: tuple[Box, ...]
    edges: tuple[Edge, ...]
    path: tuple[Edge, ...]
    hops: tuple[Hop, ...]
    gpu_options: tuple[GpuOption, ...]
    gpu_a: GpuOption
    gpu_b: GpuOption
    bottleneck: Hop | None
    nccl_path: str  # what nvidia-smi topo -m / NCCL call this path: PIX, PHB, SYS, NV18, NET ...
    system_name: str


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
        marked.append(Box(box.key, box.kind, box.number, box.x, box.y, box.w, box.h, role))
    return marked


# --- 8-GPU PCIe server: two CPU sockets, two PCIe switches per socket, two GPUs per switch -----------------


def _pcie_server(a: int, b: int) -> tuple[list[Box], list[Edge], list[Edge], tuple[Hop, ...], str, float]:
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
    boxes = [*cpus, *switches, *gpus]
    if a == b:
        return boxes, edges, [], (), "", 320
    sa, sb, ca, cb = a // 2, b // 2, a // 4, b // 4
    gpu_a, gpu_b = Endpoint("gpu", a), Endpoint("gpu", b)
    switch_a, switch_b = Endpoint("pcie-switch", sa), Endpoint("pcie-switch", sb)
    path = [_along(edges[1 + 4 + a])]
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
        path += [_along(edges[1 + sa]), _toward(edges[1 + sb])]
        kind = "PHB"
    else:
        steps = [
            (gpu_a, switch_a, "pcie5"),
            (switch_a, Endpoint("cpu", ca), "pcie5"),
            (Endpoint("cpu", ca), Endpoint("cpu", cb), "socket"),
            (Endpoint("cpu", cb), switch_b, "pcie5"),
            (switch_b, gpu_b, "pcie5"),
        ]
        path += [_along(edges[1 + sa]), _along(edges[0]) if ca == 0 else _toward(edges[0]), _toward(edges[1 + sb])]
        kind = "SYS"
    path.append(_toward(edges[1 + 4 + b]))
    return boxes, edges, path, _hops(steps), kind, 320


# --- DGX H100: eight GPUs, each wired to all four NVSwitch chips ---------------------------------------


def _nvswitch_board(a: int, b: int) -> tuple[list[Box], list[Edge], list[Edge], tuple[Hop, ...], str, float]:
    gpu_x = (120, 280, 440, 600)
    gpus = [Box(f"gpu{g}", "gpu", g, gpu_x[g % 4] - 50, 24 if g < 4 else 252, 100, 48) for g in range(8)]
    switches = [Box(f"nvs{s}", "nvswitch", s, 100 + s * 140, 142, 100, 38) for s in range(4)]
    edges: list[Edge] = []
    path: list[Edge] = []
    for g, gpu in enumerate(gpus):
        for s, switch in enumerate(switches):
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
        return boxes, edges, [], (), "", 320
    chips = Endpoint("nvswitch", 4)
    steps = [(Endpoint("gpu", a), chips, "nvlink4"), (chips, Endpoint("gpu", b), "nvlink4")]
    return boxes, edges, path, _hops(steps), f"NV{LINKS['nvlink4'].links_per_gpu}", 320


# --- GB200 NVL72: 10 compute trays, 9 NVLink switch trays, 8 compute trays, joined by the cable spine --------

NVL72_TRAY_GPUS = 4


def _nvl72(a: int, b: int) -> tuple[list[Box], list[Edge], list[Edge], tuple[Hop, ...], str, float]:
    row, gap, top = 13, 3, 16
    order = (
        [("tray", t) for t in range(10)] + [("switch-tray", s) for s in range(9)] + [("tray", t) for t in range(10, 18)]
    )
    boxes: list[Box] = []
    edges: list[Edge] = []
    tray_y: dict[int, float] = {}
    switch_y: list[float] = []
    for index, (kind, number) in enumerate(order):
        y = top + index * (row + gap)
        if kind == "tray":
            tray_y[number] = y
            boxes.append(Box(f"tray{number}", "tray", number + 1, 40, y, 96, row))
            for slot in range(NVL72_TRAY_GPUS):
                gpu = number * NVL72_TRAY_GPUS + slot
                boxes.append(Box(f"gpu{gpu}", "gpu", gpu, 142 + slot * 62, y, 58, row))
        else:
            switch_y.append(y)
            boxes.append(Box(f"st{number}", "switch-tray", number + 1, 40, y, 344, row))
    bottom = top + len(order) * (row + gap)
    # The NVLink cable spine at the back of the rack reaches every tray.
    edges.append(Edge(_line((28, top + row / 2), (28, bottom - gap - row / 2)), "nvlink"))
    for stub_y in (*tray_y.values(), *switch_y):
        edges.append(Edge(_line((28, stub_y + row / 2), (40, stub_y + row / 2)), "nvlink"))
    if a == b:
        return boxes, edges, [], (), "", bottom + 12
    switch_top, switch_bottom = switch_y[0] + row / 2, switch_y[-1] + row / 2
    switch_mid = (switch_top + switch_bottom) / 2
    ya, yb = tray_y[a // NVL72_TRAY_GPUS] + row / 2, tray_y[b // NVL72_TRAY_GPUS] + row / 2
    # Leave and enter at the tray's edge, so the path never runs over the other GPUs of the tray.
    xa = xb = 142 + NVL72_TRAY_GPUS * 62
    path = [
        Edge(_line((xa, ya), (402, ya), (402, switch_mid - 4), (386, switch_mid - 4)), "nvlink", True),
        Edge(_line((386, switch_mid + 4), (424, switch_mid + 4), (424, yb), (xb + 2, yb)), "nvlink", True),
    ]
    trays = Endpoint("switch-trays", 9)
    steps = [(Endpoint("gpu", a), trays, "nvlink5"), (trays, Endpoint("gpu", b), "nvlink5")]
    return boxes, edges, path, _hops(steps), f"NV{LINKS['nvlink5'].links_per_gpu}", bottom + 12


# --- Four DGX H100 on a rail-optimised fat tree: GPU g of every node on leaf switch g (rail g) -------------


def _fat_tree(a: int, b: int) -> tuple[list[Box], list[Edge], list[Edge], tuple[Hop, ...], str, float]:
    per_node = SYSTEMS["dgx-h100"].gpus_per_node
    boxes: list[Box] = []
    edges: list[Edge] = []
    gpu_bottom: dict[int, tuple[float, float]] = {}
    stub: dict[int, Edge] = {}
    for node in range(FAT_TREE_NODES):
        x = 12 + node * 176
        boxes.append(Box(f"node{node}", "node", node + 1, x, 14, 168, 100))
        boxes.append(Box(f"nvs{node}", "nvswitch", node, x + 8, 40, 152, 16))
        for g in range(per_node):
            gpu = node * per_node + g
            cell = Box(f"gpu{gpu}", "gpu", g, x + 8 + g * 19.25, 74, 16, 30)
            boxes.append(cell)
            stub[gpu] = Edge(_line((cell.cx, cell.y), (cell.cx, 56)), "nvlink")
            edges.append(stub[gpu])
            gpu_bottom[gpu] = (cell.cx, cell.y + cell.h)
    leaves = [Box(f"leaf{r}", "leaf", r, 14 + r * 89, 204, 72, 30) for r in range(per_node)]
    spines = [Box(f"spine{s}", "spine", s, 190 + s * 200, 316, 140, 32) for s in range(FAT_TREE_SPINES)]
    boxes += [*leaves, *spines]
    down: dict[int, Edge] = {}
    for gpu, (gpu_x, gpu_y) in gpu_bottom.items():
        leaf = leaves[gpu % per_node]
        down[gpu] = Edge(_line((gpu_x, gpu_y), (leaf.cx, leaf.y)), "network")
        edges.append(down[gpu])
    up: dict[tuple[int, int], Edge] = {}
    for r, leaf in enumerate(leaves):
        for s, spine in enumerate(spines):
            up[(r, s)] = Edge(_line((leaf.cx, leaf.y + leaf.h), (spine.cx - 50 + r * 14, spine.y)), "network")
            edges.append(up[(r, s)])
    if a == b:
        return boxes, edges, [], (), "", 366
    node_a, rail_a, node_b, rail_b = a // per_node + 1, a % per_node, b // per_node + 1, b % per_node
    gpu_a, gpu_b = Endpoint("gpu", rail_a, node_a), Endpoint("gpu", rail_b, node_b)
    if node_a == node_b:
        nvswitch = Endpoint("nvswitch", 4, node_a)
        path = [_along(stub[a]), _toward(stub[b])]
        steps = [(gpu_a, nvswitch, "nvlink4"), (nvswitch, gpu_b, "nvlink4")]
        return boxes, edges, path, _hops(steps), f"NV{LINKS['nvlink4'].links_per_gpu}", 366
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
    return boxes, edges, path, _hops(steps), "NET", 366


_LAYOUTS: dict[
    str, tuple[int, Callable[[int, int], tuple[list[Box], list[Edge], list[Edge], tuple[Hop, ...], str, float]]]
] = {
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


def build(form: fields.Form) -> View:
    topology = fields.choice(form, "topology", TOPOLOGIES)
    count, layout = _LAYOUTS[topology]
    if form["drawn"] != topology:
        # The learner just picked another machine: its GPU lists were drawn for the previous one, so start
        # from this machine's example pair instead of rejecting GPU numbers it may not have.
        a, b = DEFAULT_PAIRS[topology]
    else:
        a = fields.whole(form, "gpu_a", 0, count - 1)
        b = fields.whole(form, "gpu_b", 0, count - 1)
    boxes, edges, path, hops, nccl_path, height = layout(a, b)
    on_path = {key for hop in hops for end in (hop.source, hop.target) for key in _box_keys(end, topology)}
    marked = _mark(boxes, on_path, f"gpu{a}", f"gpu{b}")
    options = gpu_options(topology)
    known = [hop for hop in hops if hop.per_direction_GBps is not None]
    system = SYSTEMS["dgx-h100" if topology == "rail-fat-tree" else topology]
    return View(
        topology=topology,
        width=WIDTH,
        height=height,
        boxes=tuple(marked),
        edges=tuple(edges),
        path=tuple(path),
        hops=hops,
        gpu_options=options,
        gpu_a=options[a],
        gpu_b=options[b],
        bottleneck=min(known, key=lambda hop: hop.per_direction_GBps or 0.0) if known else None,
        nccl_path=nccl_path,
        system_name=system.name,
    )
