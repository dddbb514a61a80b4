"""Preset machines: how many GPUs share a scale-up domain, which links join them, and how far they scale out.

``scale_up_GBps`` and ``scale_out_GBps`` are per GPU, per direction, taken from the link catalogue so
that each
hardware figure is written once (``links.py``). Scale-out assumes one NIC rail per GPU, as in DGX systems: a
DGX H100 node has 8 x 400 Gb/s = 400 GB/s of scale-out bandwidth each way, 50 GB/s per GPU.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from app.simulator.links import LINKS
from app.simulator.source import Source

_PCI_SIG = LINKS["pcie4"].source


@dataclass(frozen=True, slots=True)
class System:
    """A node type: ``gpus_per_node`` GPUs on one scale-up fabric, ``nics_per_node`` NICs to the others."""

    id: str
    name: str
    gpus_per_node: int
    scale_up: str
    scale_up_GBps: float
    nvls: bool
    scale_out: str
    scale_out_GBps: float
    max_nodes: int
    source: Source
    gpu: str
    nics_per_node: int
    switch_chips: int | None
    note: str


def _system(
    *,
    id: str,
    name: str,
    gpus_per_node: int,
    scale_up: str,
    nvls: bool,
    scale_out: str,
    max_nodes: int,
    source: Source,
    gpu: str,
    nics_per_node: int,
    switch_chips: int | None,
    note: str,
) -> System:
    # Bandwidths come from the link catalogue, so a figure is never typed twice.
    return System(
        id=id,
        name=name,
        gpus_per_node=gpus_per_node,
        scale_up=scale_up,
        scale_up_GBps=LINKS[scale_up].per_direction_GBps,
        nvls=nvls,
        scale_out=scale_out,
        scale_out_GBps=LINKS[scale_out].per_direction_GBps * nics_per_node / gpus_per_node,
        max_nodes=max_nodes,
        source=source,
        gpu=gpu,
        nics_per_node=nics_per_node,
        switch_chips=switch_chips,
        note=note,
    )


_ALL_SYSTEMS: tuple[System, ...] = (
    _system(
        id="dgx-a100",
        name="NVIDIA DGX A100",
        gpus_per_node=8,
        scale_up="nvlink3",
        nvls=False,
        scale_out="ib-hdr",
        max_nodes=140,
        source=Source(
            "NVIDIA DGX A100 User Guide, Introduction",
            "https://docs.nvidia.com/dgx/dgxa100-user-guide/introduction-to-dgxa100.html",
        ),
        gpu="8 x A100 SXM4 (40 or 80 GB)",
        nics_per_node=8,
        switch_chips=6,
        note=(
            "Six second-generation NVSwitch chips; eight single-port ConnectX-6 HDR 200 Gb/s NICs for "
            "compute. "
            "max_nodes: a DGX SuperPOD of 140 DGX A100."
        ),
    ),
    _system(
        id="dgx-h100",
        name="NVIDIA DGX H100",
        gpus_per_node=8,
        scale_up="nvlink4",
        nvls=True,
        scale_out="ib-ndr",
        max_nodes=128,
        source=Source(
            "NVIDIA DGX H100/H200 User Guide, Introduction",
            "https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html",
        ),
        gpu="8 x H100 SXM5 80 GB",
        nics_per_node=8,
        switch_chips=4,
        note=(
            "Four third-generation NVSwitch chips with NVLink SHARP (in-switch reduction, NVLS); eight "
            "ConnectX-7 "
            "400 Gb/s ports, one rail per GPU. max_nodes: a DGX SuperPOD of 4 scalable units (127 "
            "nodes) rounded."
        ),
    ),
    _system(
        id="hgx-h200",
        name="NVIDIA HGX H200 (8-GPU)",
        gpus_per_node=8,
        scale_up="nvlink4",
        nvls=True,
        scale_out="ib-ndr",
        max_nodes=128,
        source=Source("NVIDIA H200 Tensor Core GPU", "https://www.nvidia.com/en-us/data-center/h200/"),
        gpu="8 x H200 SXM 141 GB",
        nics_per_node=8,
        switch_chips=4,
        note="Same NVLink 4 / NVSwitch fabric as HGX H100, with more and faster HBM; 8 x 400 Gb/s NICs.",
    ),
    _system(
        id="dgx-b200",
        name="NVIDIA DGX B200",
        gpus_per_node=8,
        scale_up="nvlink5",
        nvls=True,
        scale_out="ib-ndr",
        max_nodes=128,
        source=Source("NVIDIA DGX B200", "https://www.nvidia.com/en-us/data-center/dgx-b200/"),
        gpu="8 x B200",
        nics_per_node=8,
        switch_chips=2,
        note="Two NVLink 5 switch chips (14.4 TB/s total GPU bandwidth); eight ConnectX-7 400 Gb/s ports.",
    ),
    _system(
        id="gb200-nvl72",
        name="NVIDIA GB200 NVL72",
        gpus_per_node=72,
        scale_up="nvlink5",
        nvls=True,
        scale_out="ib-ndr",
        max_nodes=8,
        source=Source("NVIDIA GB200 NVL72", "https://www.nvidia.com/en-us/data-center/gb200-nvl72/"),
        gpu="72 x B200 (36 GB200 superchips with 36 Grace CPUs)",
        nics_per_node=72,
        switch_chips=18,
        note=(
            "A 'node' here is one NVL72 rack: 18 compute trays of 4 GPUs joined by 9 NVLink switch trays "
            "(2 chips each, 144 ports, 14.4 TB/s per tray), 130 TB/s of NVLink in total. One 400 Gb/s "
            "ConnectX-7 rail per GPU to other racks. max_nodes: a DGX SuperPOD of 8 racks (576 GPUs)."
        ),
    ),
    _system(
        id="pcie-gen4-8gpu",
        name="8-GPU PCIe 4.0 server (illustrative)",
        gpus_per_node=8,
        scale_up="pcie4",
        nvls=False,
        scale_out="ib-hdr",
        max_nodes=32,
        source=_PCI_SIG,
        gpu="8 x PCIe 4.0 x16 GPUs (e.g. A100 PCIe, L40S)",
        nics_per_node=8,
        switch_chips=None,
        note=(
            "A generic server, not a product: GPUs talk through PCIe switches and the CPUs, so peers share "
            "slot bandwidth. One 200 Gb/s HDR NIC per GPU."
        ),
    ),
    _system(
        id="pcie-gen5-8gpu",
        name="8-GPU PCIe 5.0 server (illustrative)",
        gpus_per_node=8,
        scale_up="pcie5",
        nvls=False,
        scale_out="roce-400g",
        max_nodes=32,
        source=_PCI_SIG,
        gpu="8 x PCIe 5.0 x16 GPUs (e.g. H100 NVL, RTX PRO 6000)",
        nics_per_node=8,
        switch_chips=None,
        note="A generic server, not a product: PCIe 5.0 switches, one 400 GbE RoCE NIC per GPU.",
    ),
)

SYSTEMS: Mapping[str, System] = MappingProxyType({system.id: system for system in _ALL_SYSTEMS})


def system_to_dict(system: System) -> dict[str, Any]:
    """The ``/api/v1/systems`` item (DESIGN §4); ``source`` is the URL."""
    return {
        "id": system.id,
        "name": system.name,
        "gpus_per_node": system.gpus_per_node,
        "scale_up": system.scale_up,
        "scale_up_GBps": system.scale_up_GBps,
        "nvls": system.nvls,
        "scale_out": system.scale_out,
        "scale_out_GBps": system.scale_out_GBps,
        "max_nodes": system.max_nodes,
        "source": system.source.url,
    }
