"""What real software reaches: achievable fractions of line rate, per-step latencies, and how fast they
ramp up.

Calibrated mode multiplies every line rate by an efficiency below 1, adds NCCL's own latency model, and lets
bandwidth build up with message size. Each constant names where it comes from; the published nccl-tests
results
it was checked against are the table in ``tests/unit/simulator/test_calibration.py``.

Bandwidth ramp. NCCL splits a message into chunks over a number of channels and runs them through a pipeline,
so a collective reaches its peak bus bandwidth only for large messages. We model the fraction reached as

    ramp(S) = 1 / (1 + (S_half / S) ** p),   S_half = t_half * B_eff,

where S is the message size, B_eff the achievable bandwidth in bytes/s and t_half the time the fabric
needs before
it runs at half its peak. A ramp with p = 1 is exactly an extra latency t_half; published curves rise
more slowly
than that (p < 1). t_half and p are fitted per fabric to published all_reduce_perf curves and are empirical:
nothing in NCCL's source states them. For p <= 1, time still grows with size and shrinks with bandwidth.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from app.simulator.source import Source

LatencyClass = Literal["nvlink", "pci", "net"]
Protocol = Literal["LL", "LL128", "Simple"]

NCCL_TUNING = Source(
    "NVIDIA/nccl, src/graph/tuning.cc (baseLat, hwLat and protocol bandwidth factors)",
    "https://github.com/NVIDIA/nccl/blob/master/src/graph/tuning.cc",
)

# NCCL's latency model (tuning.cc): a collective costs baseLat[algorithm][protocol] plus hwLat per
# step, where the
# hardware class is NVLink or PCI inside a node and the network between nodes. Values in microseconds.
BASE_LATENCY_US: Mapping[tuple[str, Protocol], float] = MappingProxyType(
    {
        ("ring", "LL"): 6.6,
        ("ring", "LL128"): 14.0,
        ("ring", "Simple"): 8.4,
        ("tree", "LL"): 6.8,
        ("tree", "LL128"): 14.0,
        ("tree", "Simple"): 8.4,
        ("nvls", "Simple"): 0.0,
    }
)
STEP_LATENCY_US: Mapping[tuple[LatencyClass, str, Protocol], float] = MappingProxyType(
    {
        ("nvlink", "ring", "LL"): 0.6,
        ("nvlink", "ring", "LL128"): 1.9,
        ("nvlink", "ring", "Simple"): 3.4,
        ("nvlink", "tree", "LL"): 0.6,
        ("nvlink", "tree", "LL128"): 1.25,
        ("nvlink", "tree", "Simple"): 4.0,
        ("nvlink", "nvls", "Simple"): 25.0,
        ("pci", "nvls", "Simple"): 0.0,
        ("pci", "ring", "LL"): 1.0,
        ("pci", "ring", "LL128"): 2.5,
        ("pci", "ring", "Simple"): 5.7,
        ("pci", "tree", "LL"): 1.0,
        ("pci", "tree", "LL128"): 1.9,
        ("pci", "tree", "Simple"): 4.0,
        ("net", "ring", "LL"): 2.7,
        ("net", "ring", "LL128"): 4.0,
        ("net", "ring", "Simple"): 14.0,
        ("net", "tree", "LL"): 5.0,
        ("net", "tree", "LL128"): 8.5,
        ("net", "tree", "Simple"): 14.0,
        ("net", "nvls", "Simple"): 18.0,
    }
)
# Fraction of the Simple protocol's bandwidth each protocol keeps (tuning.cc): LL sends a 4-byte flag
# with every
# 4 bytes of data; LL128 a flag per 128-byte line ("busBw * 0.92 /*120.0/128.0*/" for rings); tree LL
# is 1/3.8.
PROTOCOL_BANDWIDTH_FRACTION: Mapping[tuple[str, Protocol], float] = MappingProxyType(
    {
        ("ring", "LL"): 0.5,
        ("ring", "LL128"): 0.92,
        ("ring", "Simple"): 1.0,
        ("tree", "LL"): 1.0 / 3.8,
        ("tree", "LL128"): 120.0 / 128.0,
        ("tree", "Simple"): 1.0,
        ("nvls", "Simple"): 1.0,
    }
)
# tuning.cc: "if (a == NCCL_ALGO_TREE && coll == ncclFuncAllReduce) busBw = std::min(busBw*.92, ...)".
TREE_EFFICIENCY_FACTOR = 0.92


@dataclass(frozen=True, slots=True)
class FabricCalibration:
    """Achievable fraction of line rate on one fabric for one algorithm family, and its ramp with size."""

    efficiency: float
    ramp_half_time_us: float
    ramp_exponent: float
    source: Source
    evidence: str


@dataclass(frozen=True, slots=True)
class ScaleUpCalibration:
    """How a system's scale-up fabric behaves: ring-like traffic, and NVLink SHARP (NVLS) where it has it."""

    latency_class: LatencyClass
    ring: FabricCalibration
    nvls: FabricCalibration | None


_AZURE_A100 = Source(
    "Azure AI benchmarking guide, ND A100 v4 results (NCCL all_reduce_perf, 8 x A100 SXM4 80 GB, NCCL 2.18.5)",
    "https://github.com/Azure/AI-benchmarking-guide/blob/main/Azure_Results/ND_A100_v4_results.md",
)
_AZURE_H100 = Source(
    "Azure AI benchmarking guide, ND H100 v5 results (NCCL all_reduce_perf with NVLS, 8 x H100, NCCL 2.18.5)",
    "https://github.com/Azure/AI-benchmarking-guide/blob/main/Azure%20Results/ND_H100_v5_results.md",
)
_NCCL_TESTS_212 = Source(
    "NVIDIA/nccl-tests issue 212, H100 all reduce performance (answer by NCCL maintainer S. Jeaugey)",
    "https://github.com/NVIDIA/nccl-tests/issues/212",
)
_NVL72_COREWEAVE = Source(
    "coreweave/nccl-tests pull request 43, GB200 NVL72 example (full-rack all_reduce_perf, 72 GPUs)",
    "https://github.com/coreweave/nccl-tests/pull/43",
)
_B200_NCCL_1807 = Source(
    "NVIDIA/nccl issue 1807, 8 x B200 all_reduce_perf ('Ours is 830+')",
    "https://github.com/NVIDIA/nccl/issues/1807",
)
_NCCL_TOPO = Source(
    "NVIDIA/nccl, src/graph/topo.h (PCI_BW 12.0 for a PCIe 3.0 x16 path)",
    "https://github.com/NVIDIA/nccl/blob/master/src/graph/topo.h",
)

# Ring bandwidth ramp of NCCL on NVSwitch, fitted to the Azure ND A100 v4 all_reduce_perf curve (16 MiB
# to 8 GiB)
# and reused for the other NVLink and PCIe fabrics, for which no mid-size ring curve was found.
_RING_RAMP_HALF_TIME_US = 60.0
_RING_RAMP_EXPONENT = 0.7
# NVLS ramp, fitted to the Azure ND H100 v5 all_reduce_perf curve (NVLS, 16 MiB to 8 GiB).
_NVLS_RAMP_HALF_TIME_US = 30.0
_NVLS_RAMP_EXPONENT = 0.7

_NVLINK_RING = FabricCalibration(
    efficiency=0.82,
    ramp_half_time_us=_RING_RAMP_HALF_TIME_US,
    ramp_exponent=_RING_RAMP_EXPONENT,
    source=_NCCL_TESTS_212,
    evidence=(
        "NCCL rings over NVLink reach about 82% of line rate: 'With the protocol overhead (~20%) NCCL "
        "can get an effective NVLink bandwidth of 370GB/s' on H100 (450 GB/s line rate)"
    ),
)

_H100_NVLS = FabricCalibration(
    efficiency=0.685,
    ramp_half_time_us=_NVLS_RAMP_HALF_TIME_US,
    ramp_exponent=_NVLS_RAMP_EXPONENT,
    source=_AZURE_H100,
    evidence=(
        "NVLS all_reduce_perf on 8 x H100 reaches a busbw of 478.87 GB/s at 8 GiB (algbw 274 GB/s), "
        "so each NVLink direction carries about 308 GB/s, 68.5% of 450 GB/s"
    ),
)

_PCIE_RING = FabricCalibration(
    efficiency=12.0 / 15.75,
    ramp_half_time_us=_RING_RAMP_HALF_TIME_US,
    ramp_exponent=_RING_RAMP_EXPONENT,
    source=_NCCL_TOPO,
    evidence=(
        "NCCL's topology model credits a PCIe x16 path with 12 GB/s of its 15.75 GB/s (76%); real "
        "servers often reach less because peers share PCIe switches and CPU links"
    ),
)

SCALE_UP_CALIBRATIONS: Mapping[str, ScaleUpCalibration] = MappingProxyType(
    {
        "dgx-a100": ScaleUpCalibration(
            latency_class="nvlink",
            ring=FabricCalibration(
                efficiency=0.78,
                ramp_half_time_us=_RING_RAMP_HALF_TIME_US,
                ramp_exponent=_RING_RAMP_EXPONENT,
                source=_AZURE_A100,
                evidence=("all_reduce_perf on 8 x A100 reaches a busbw of 231.58 GB/s at 8 GiB, 78% of 300 GB/s"),
            ),
            nvls=None,
        ),
        "dgx-h100": ScaleUpCalibration(
            latency_class="nvlink",
            ring=_NVLINK_RING,
            nvls=_H100_NVLS,
        ),
        "hgx-h200": ScaleUpCalibration(latency_class="nvlink", ring=_NVLINK_RING, nvls=_H100_NVLS),
        "dgx-b200": ScaleUpCalibration(
            latency_class="nvlink",
            ring=_NVLINK_RING,
            nvls=FabricCalibration(
                efficiency=0.6,
                ramp_half_time_us=_NVLS_RAMP_HALF_TIME_US,
                ramp_exponent=_NVLS_RAMP_EXPONENT,
                source=_B200_NCCL_1807,
                evidence=(
                    "a user reports a peak all_reduce busbw of '830+' GB/s on 8 x B200 (no message size "
                    "given), "
                    "about 60% of 900 GB/s on the wire; the ramp is assumed equal to H100's"
                ),
            ),
        ),
        "gb200-nvl72": ScaleUpCalibration(
            latency_class="nvlink",
            ring=_NVLINK_RING,
            nvls=FabricCalibration(
                efficiency=0.49,
                ramp_half_time_us=520.0,
                ramp_exponent=0.9,
                source=_NVL72_COREWEAVE,
                evidence=(
                    "a full-rack all_reduce_perf on 72 GPUs reaches a busbw of 834.57 GB/s at 8 GiB and "
                    "681.17 GB/s "
                    "at 1 GiB, about 49% of 900 GB/s on the wire, and needs far larger messages than "
                    "8-GPU NVLS"
                ),
            ),
        ),
        "pcie-gen4-8gpu": ScaleUpCalibration(
            latency_class="pci",
            ring=_PCIE_RING,
            nvls=None,
        ),
        "pcie-gen5-8gpu": ScaleUpCalibration(latency_class="pci", ring=_PCIE_RING, nvls=None),
    }
)

_SJEAUGEY_HDR = Source(
    "NVIDIA/nccl-tests issue 119 (S. Jeaugey: 'We usually consider 24GB/s is the peak performance per 200G NIC')",
    "https://github.com/NVIDIA/nccl-tests/issues/119",
)
_ADDYLADDY_NDR = Source(
    "NVIDIA/nccl-tests issue 290 (NVIDIA's D. Addison: 'For NDR @ 400Gbps you should see 46-48GB/s per NIC')",
    "https://github.com/NVIDIA/nccl-tests/issues/290",
)
# The network ramp is fitted to the 3-node HDR curve of NVIDIA/nccl-tests issue 119 (busbw ~96 GB/s at
# 128 MB).
_NET_RAMP_HALF_TIME_US = 20.0
_NET_RAMP_EXPONENT = 0.7

_NDR = FabricCalibration(
    efficiency=47.0 / 50.0,
    ramp_half_time_us=_NET_RAMP_HALF_TIME_US,
    ramp_exponent=_NET_RAMP_EXPONENT,
    source=_ADDYLADDY_NDR,
    evidence="NCCL reaches 46-48 GB/s per 400 Gb/s NDR NIC (we take 47, 94% of 50 GB/s)",
)

NETWORK_CALIBRATIONS: Mapping[str, FabricCalibration] = MappingProxyType(
    {
        "ib-edr": FabricCalibration(
            efficiency=12.0 / 12.5,
            ramp_half_time_us=_NET_RAMP_HALF_TIME_US,
            ramp_exponent=_NET_RAMP_EXPONENT,
            source=_SJEAUGEY_HDR,
            evidence="NCCL reaches about 12 GB/s per 100 Gb/s NIC (96% of 12.5 GB/s)",
        ),
        "ib-hdr": FabricCalibration(
            efficiency=24.0 / 25.0,
            ramp_half_time_us=_NET_RAMP_HALF_TIME_US,
            ramp_exponent=_NET_RAMP_EXPONENT,
            source=_SJEAUGEY_HDR,
            evidence="NCCL reaches about 24 GB/s per 200 Gb/s HDR NIC (96% of 25 GB/s)",
        ),
        "ib-ndr": _NDR,
        "ib-xdr": FabricCalibration(
            efficiency=_NDR.efficiency,
            ramp_half_time_us=_NET_RAMP_HALF_TIME_US,
            ramp_exponent=_NET_RAMP_EXPONENT,
            source=_ADDYLADDY_NDR,
            evidence="no published XDR figure was found; we assume NDR's 94% of line rate",
        ),
        "roce-400g": FabricCalibration(
            efficiency=_NDR.efficiency,
            ramp_half_time_us=_NET_RAMP_HALF_TIME_US,
            ramp_exponent=_NET_RAMP_EXPONENT,
            source=Source(
                "NVIDIA/nccl-tests issue 267 (NVIDIA's D. Addison: 'CX-7 NICs at NDR rate (400Gbps) should "
                "achieve up to 48-49GB/s per NIC', on a RoCE cluster)",
                "https://github.com/NVIDIA/nccl-tests/issues/267",
            ),
            evidence=("a 400 Gb/s ConnectX-7 reaches up to 48-49 GB/s; we assume NDR's more typical 94% of line rate"),
        ),
        "roce-800g": FabricCalibration(
            efficiency=_NDR.efficiency,
            ramp_half_time_us=_NET_RAMP_HALF_TIME_US,
            ramp_exponent=_NET_RAMP_EXPONENT,
            source=_ADDYLADDY_NDR,
            evidence="no published 800 Gb/s RoCE figure was found; we assume NDR's 94% of line rate",
        ),
    }
)
