"""The links a GPU uses: PCIe to its host, NVLink to its peers, InfiniBand and RoCE to other nodes.

Every figure is written here once. ``per_direction_GBps`` is what one direction carries (what cost
models use);
``bidirectional_GBps`` is both directions added, which is how NVIDIA and PCI-SIG quote NVLink and PCIe
headlines.
GB/s are 10^9 bytes per second; network line rates are in Gb/s (10^9 bits per second), so 400 Gb/s = 50 GB/s.

Scope of each figure (DESIGN §4): NVLink is per GPU (all its links together), PCIe is per x16 slot, InfiniBand
and RoCE are per port / NIC. Figures are line rates after line coding (PCIe 128b/130b, FLIT for PCIe 6.0), not
what software reaches: achievable fractions live in ``calibration.py``.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

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


_PCI_SIG = Source(
    "PCI-SIG, The Evolution of the PCI Express Specification: On its Sixth Generation, Third Decade and "
    "Still "
    "Going Strong (2022)",
    "https://pcisig.com/blog/evolution-pci-express-specification-its-sixth-generation-third-decade-and-still-going-strong",
)
_IBTA = Source("InfiniBand Trade Association, InfiniBand Roadmap", "https://www.infinibandta.org/infiniband-roadmap/")
_CONNECTX8 = Source(
    "NVIDIA ConnectX-8 SuperNIC Firmware Release Notes v40.44.0208, Changes and New Features",
    "https://docs.nvidia.com/networking/display/connectx8firmwarev40440208/changes+and+new+features",
)

_ALL_LINKS: tuple[Link, ...] = (
    Link(
        id="pcie3",
        name="PCIe 3.0 x16",
        kind="host",
        per_direction_GBps=15.75,
        bidirectional_GBps=31.5,
        year=2010,
        source=_PCI_SIG,
        links_per_gpu=None,
        per_link_per_direction_GBps=None,
        lanes=16,
        transfer_rate_GTps=8.0,
        line_rate_Gbps=None,
        products="P100 PCIe, V100 PCIe, ConnectX-5/6 hosts",
        note="8 GT/s x 16 lanes x 128/130 (128b/130b coding) / 8 bits = 15.75 GB/s each way.",
    ),
    Link(
        id="pcie4",
        name="PCIe 4.0 x16",
        kind="host",
        per_direction_GBps=31.5,
        bidirectional_GBps=63.0,
        year=2017,
        source=_PCI_SIG,
        links_per_gpu=None,
        per_link_per_direction_GBps=None,
        lanes=16,
        transfer_rate_GTps=16.0,
        line_rate_Gbps=None,
        products="A100, A100 PCIe, L40S",
        note=("16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s each way; NVIDIA rounds both directions to 64 GB/s."),
    ),
    Link(
        id="pcie5",
        name="PCIe 5.0 x16",
        kind="host",
        per_direction_GBps=63.0,
        bidirectional_GBps=126.0,
        year=2019,
        source=_PCI_SIG,
        links_per_gpu=None,
        per_link_per_direction_GBps=None,
        lanes=16,
        transfer_rate_GTps=32.0,
        line_rate_Gbps=None,
        products="H100, H200, B200, ConnectX-7",
        note=("32 GT/s x 16 lanes x 128/130 / 8 = 63 GB/s each way; NVIDIA quotes both directions as 128 GB/s."),
    ),
    Link(
        id="pcie6",
        name="PCIe 6.0 x16",
        kind="host",
        per_direction_GBps=121.0,
        bidirectional_GBps=242.0,
        year=2022,
        source=_PCI_SIG,
        links_per_gpu=None,
        per_link_per_direction_GBps=None,
        lanes=16,
        transfer_rate_GTps=64.0,
        line_rate_Gbps=None,
        products="ConnectX-8 SuperNIC, Blackwell Ultra hosts",
        note=(
            "64 GT/s PAM4 x 16 lanes = 128 GB/s raw each way (PCI-SIG's headline: 256 GB/s both ways); "
            "FLIT mode carries 242 payload bytes in 256, so 121 GB/s each way."
        ),
    ),
    Link(
        id="nvlink1",
        name="NVLink 1 (Pascal P100)",
        kind="scale-up",
        per_direction_GBps=80.0,
        bidirectional_GBps=160.0,
        year=2016,
        source=Source(
            "NVIDIA Tesla P100 whitepaper (Pascal architecture)",
            "https://images.nvidia.com/content/pdf/tesla/whitepaper/pascal-architecture-whitepaper.pdf",
        ),
        links_per_gpu=4,
        per_link_per_direction_GBps=20.0,
        lanes=None,
        transfer_rate_GTps=None,
        line_rate_Gbps=None,
        products="P100 SXM2, DGX-1 (P100)",
        note="4 links x 20 GB/s each way = 80 GB/s; the whitepaper's 160 GB/s adds both directions.",
    ),
    Link(
        id="nvlink2",
        name="NVLink 2 (Volta V100)",
        kind="scale-up",
        per_direction_GBps=150.0,
        bidirectional_GBps=300.0,
        year=2017,
        source=Source(
            "NVIDIA Tesla V100 GPU architecture whitepaper",
            "https://images.nvidia.com/content/volta-architecture/pdf/volta-architecture-whitepaper.pdf",
        ),
        links_per_gpu=6,
        per_link_per_direction_GBps=25.0,
        lanes=None,
        transfer_rate_GTps=None,
        line_rate_Gbps=None,
        products="V100 SXM2/SXM3, DGX-1 (V100), DGX-2",
        note="6 links x 25 GB/s each way = 150 GB/s; 300 GB/s with both directions.",
    ),
    Link(
        id="nvlink3",
        name="NVLink 3 (Ampere A100)",
        kind="scale-up",
        per_direction_GBps=300.0,
        bidirectional_GBps=600.0,
        year=2020,
        source=Source(
            "NVIDIA A100 Tensor Core GPU architecture whitepaper",
            "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf",
        ),
        links_per_gpu=12,
        per_link_per_direction_GBps=25.0,
        lanes=None,
        transfer_rate_GTps=None,
        line_rate_Gbps=None,
        products="A100 SXM4, DGX A100, HGX A100",
        note="12 links x 25 GB/s each way = 300 GB/s; 600 GB/s with both directions.",
    ),
    Link(
        id="nvlink4",
        name="NVLink 4 (Hopper H100, H200)",
        kind="scale-up",
        per_direction_GBps=450.0,
        bidirectional_GBps=900.0,
        year=2022,
        source=Source(
            "NVIDIA H100 Tensor Core GPU architecture whitepaper",
            "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper",
        ),
        links_per_gpu=18,
        per_link_per_direction_GBps=25.0,
        lanes=None,
        transfer_rate_GTps=None,
        line_rate_Gbps=None,
        products="H100 SXM5, H200, DGX H100, HGX H100/H200",
        note="18 links x 25 GB/s each way = 450 GB/s; the headline 900 GB/s adds both directions.",
    ),
    Link(
        id="nvlink5",
        name="NVLink 5 (Blackwell B200, GB200, GB300)",
        kind="scale-up",
        per_direction_GBps=900.0,
        bidirectional_GBps=1800.0,
        year=2024,
        source=Source("NVIDIA NVLink and NVLink Switch", "https://www.nvidia.com/en-us/data-center/nvlink/"),
        links_per_gpu=18,
        per_link_per_direction_GBps=50.0,
        lanes=None,
        transfer_rate_GTps=None,
        line_rate_Gbps=None,
        products="B200, GB200, GB300, DGX B200, GB200 NVL72",
        note="18 NVLink connections of 100 GB/s (both directions) = 1.8 TB/s, so 900 GB/s each way.",
    ),
    Link(
        id="ib-edr",
        name="InfiniBand EDR 4x",
        kind="scale-out",
        per_direction_GBps=12.5,
        bidirectional_GBps=25.0,
        year=2014,
        source=_IBTA,
        links_per_gpu=None,
        per_link_per_direction_GBps=None,
        lanes=4,
        transfer_rate_GTps=None,
        line_rate_Gbps=100.0,
        products="ConnectX-4/5, Switch-IB 2, DGX-1",
        note="4 lanes x 25 Gb/s = 100 Gb/s = 12.5 GB/s each way.",
    ),
    Link(
        id="ib-hdr",
        name="InfiniBand HDR 4x",
        kind="scale-out",
        per_direction_GBps=25.0,
        bidirectional_GBps=50.0,
        year=2018,
        source=_IBTA,
        links_per_gpu=None,
        per_link_per_direction_GBps=None,
        lanes=4,
        transfer_rate_GTps=None,
        line_rate_Gbps=200.0,
        products="ConnectX-6, Quantum, DGX A100",
        note="4 lanes x 50 Gb/s = 200 Gb/s = 25 GB/s each way.",
    ),
    Link(
        id="ib-ndr",
        name="InfiniBand NDR 4x",
        kind="scale-out",
        per_direction_GBps=50.0,
        bidirectional_GBps=100.0,
        year=2021,
        source=_IBTA,
        links_per_gpu=None,
        per_link_per_direction_GBps=None,
        lanes=4,
        transfer_rate_GTps=None,
        line_rate_Gbps=400.0,
        products="ConnectX-7, Quantum-2, DGX H100, DGX B200, GB200 NVL72",
        note="4 lanes x 100 Gb/s = 400 Gb/s = 50 GB/s each way.",
    ),
    Link(
        id="ib-xdr",
        name="InfiniBand XDR 4x",
        kind="scale-out",
        per_direction_GBps=100.0,
        bidirectional_GBps=200.0,
        year=2024,
        source=_CONNECTX8,
        links_per_gpu=None,
        per_link_per_direction_GBps=None,
        lanes=4,
        transfer_rate_GTps=None,
        line_rate_Gbps=800.0,
        products="ConnectX-8 SuperNIC, Quantum-X800, GB300 NVL72",
        note="4 lanes x 200 Gb/s = 800 Gb/s = 100 GB/s each way (IBTA roadmap; ConnectX-8 release notes).",
    ),
    Link(
        id="roce-400g",
        name="RoCE 400 GbE",
        kind="scale-out",
        per_direction_GBps=50.0,
        bidirectional_GBps=100.0,
        year=2023,
        source=Source(
            "NVIDIA Spectrum-X Ethernet networking platform",
            "https://www.nvidia.com/en-us/networking/spectrumx/",
        ),
        links_per_gpu=None,
        per_link_per_direction_GBps=None,
        lanes=None,
        transfer_rate_GTps=None,
        line_rate_Gbps=400.0,
        products="ConnectX-7, BlueField-3 SuperNIC, Spectrum-4 (Spectrum-X)",
        note="400 Gb/s = 50 GB/s each way per NIC.",
    ),
    Link(
        id="roce-800g",
        name="RoCE 800 Gb/s (2 x 400 GbE)",
        kind="scale-out",
        per_direction_GBps=100.0,
        bidirectional_GBps=200.0,
        year=2024,
        source=_CONNECTX8,
        links_per_gpu=None,
        per_link_per_direction_GBps=None,
        lanes=None,
        transfer_rate_GTps=None,
        line_rate_Gbps=800.0,
        products="ConnectX-8 SuperNIC, Spectrum-X800",
        note="ConnectX-8 reaches 800 Gb/s on Ethernet as 2 x 400 GbE (one 800 GbE port is not supported).",
    ),
)

LINKS: Mapping[str, Link] = MappingProxyType({link.id: link for link in _ALL_LINKS})


def link_to_dict(link: Link) -> dict[str, Any]:
    """The ``/api/v1/links`` item (DESIGN §4); ``source`` is the URL."""
    return {
        "id": link.id,
        "name": link.name,
        "kind": link.kind,
        "per_direction_GBps": link.per_direction_GBps,
        "bidirectional_GBps": link.bidirectional_GBps,
        "year": link.year,
        "source": link.source.url,
    }
