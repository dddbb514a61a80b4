"""The links a GPU uses: PCIe to its host, NVLink to its peers, InfiniBand, RoCE and EFA to other nodes.

Every figure is written once, in ``data/links.json``; this module loads it. ``per_direction_GBps`` is what one
direction carries (what cost models use); ``bidirectional_GBps`` is both directions added, which is how NVIDIA and
PCI-SIG quote NVLink and PCIe headlines. GB/s are 10^9 bytes per second; network line rates are in Gb/s (10^9 bits
per second), so 400 Gb/s = 50 GB/s.

Scope of each figure (DESIGN §4): NVLink is per GPU (all its links together), PCIe is per x16 slot, InfiniBand,
RoCE and EFA are per port / NIC / device. Figures are line rates after line coding (PCIe 128b/130b, FLIT for PCIe
6.0), not what software reaches: achievable fractions live in ``calibration.py``.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from app.simulator.catalogue import api_item, build, load_items
from app.simulator.source import Source

LinkKind = Literal["host", "scale-up", "scale-out"]


@dataclass(frozen=True, slots=True)
class Link:
    """One link generation with its line rate in each direction and both directions added."""

    id: str
    name: str
    kind: LinkKind
    per_direction_GBps: float
    bidirectional_GBps: float
    year: int
    source: Source
    links_per_gpu: int | None
    per_link_per_direction_GBps: float | None
    lanes: int | None
    transfer_rate_GTps: float | None
    line_rate_Gbps: float | None
    products: str
    note: str = ""


_ALL_LINKS: tuple[Link, ...] = tuple(
    build(Link, item, f"links.json[{index}]") for index, item in enumerate(load_items("links.json"))
)

LINKS: Mapping[str, Link] = MappingProxyType({link.id: link for link in _ALL_LINKS})


def link_to_dict(link: Link) -> dict[str, Any]:
    """The ``/api/v1/links`` item (DESIGN §4); ``source`` is the URL."""
    return api_item(link, ("id", "name", "kind", "per_direction_GBps", "bidirectional_GBps", "year"))
