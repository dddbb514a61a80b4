"""Preset machines: how many GPUs share a scale-up domain, which links join them, and how far they scale out.

The systems are ``data/systems.json``; ``scale_up_GBps`` and ``scale_out_GBps`` (per GPU, per direction) are
derived from the link catalogue (``data/links.json``), so that each hardware figure is written once. Scale-out is
the node's NICs shared by its GPUs: a DGX H100 node has 8 x 400 Gb/s = 400 GB/s each way, 50 GB/s per GPU (one
rail per GPU); a cloud node with other NICs (AWS EFA) says how many it has.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from app.simulator.catalogue import CatalogueError, api_item, build, load_items
from app.simulator.links import LINKS
from app.simulator.source import Source


@dataclass(frozen=True, slots=True)
class System:
    """A node type: ``gpus_per_node`` GPUs on one scale-up fabric, ``nics_per_node`` NICs to the others.

    ``scale_up_GBps`` and ``scale_out_GBps`` are derived from the link catalogue, not read from
    ``data/systems.json``, so that a figure is never typed twice.
    """

    id: str
    name: str
    gpus_per_node: int
    scale_up: str
    scale_up_GBps: float = field(init=False)
    nvls: bool
    scale_out: str
    scale_out_GBps: float = field(init=False)
    max_nodes: int
    source: Source
    gpu: str
    nics_per_node: int
    switch_chips: int | None
    note: str

    def __post_init__(self) -> None:
        for link_id in (self.scale_up, self.scale_out):
            if link_id not in LINKS:
                raise CatalogueError(f"unknown link '{link_id}'")
        # Frozen: the derived fields are set once, here.
        object.__setattr__(self, "scale_up_GBps", LINKS[self.scale_up].per_direction_GBps)
        scale_out_GBps = LINKS[self.scale_out].per_direction_GBps * self.nics_per_node / self.gpus_per_node
        object.__setattr__(self, "scale_out_GBps", scale_out_GBps)


_ALL_SYSTEMS: tuple[System, ...] = tuple(
    build(System, item, f"systems.json[{index}]") for index, item in enumerate(load_items("systems.json"))
)

SYSTEMS: Mapping[str, System] = MappingProxyType({system.id: system for system in _ALL_SYSTEMS})


_API_FIELDS = (
    "id",
    "name",
    "gpus_per_node",
    "scale_up",
    "scale_up_GBps",
    "nvls",
    "scale_out",
    "scale_out_GBps",
    "max_nodes",
)


def system_to_dict(system: System) -> dict[str, Any]:
    """The ``/api/v1/systems`` item (DESIGN §4); ``source`` is the URL."""
    return api_item(system, _API_FIELDS)
