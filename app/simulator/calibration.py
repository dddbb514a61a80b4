"""What real software reaches: NCCL's own latency and protocol model, achievable fractions of line rate, and
how bandwidth builds up with message size. Each constant names where it comes from.

The model follows NCCL's tuning model (``src/graph/tuning.cc``) for what NCCL publishes, and fits what it does
not publish to the reference sweeps stored under ``tests/data/nccl_sweeps`` (every fitted constant names the
sweep it was fitted to). Per algorithm and protocol p, a collective of S bytes takes

    time = latency(p) + traffic * S / (B_eff * fraction(p)) * (1 + (S_half / S) ** k) + fill(S)
    fill(S) = t_fill * min(1, S / S_fill)                                   (Simple only)

- latency(p): NCCL's baseLat[algorithm][p] + hwLat[hardware][algorithm][p] per step (tuning.cc), NVLink or
  PCI steps inside a node and network steps between nodes.
- fraction(p): the share of Simple's bandwidth a protocol keeps (tuning.cc): ring LL 1/4 for all-reduce and
  1/3 for the others (an 8-byte line carries 4 bytes of data and a flag, and LL runs fewer threads), LL128
  0.92 (120 of 128 bytes), tree LL 1/3.8.
- B_eff: the achievable per-GPU per-direction bandwidth with Simple at large sizes (efficiency x line rate),
  from the plateau of a published sweep.
- The ramp (S_half = t_half x B_eff, exponent k): NCCL runs fewer channels, each at less than its peak,
  until a message is large enough to fill them; fitted to the mid-size rows of a published sweep.
- The fill: Simple pipelines each channel's chunks through every step, so a message pays the pipeline's fill
  and drain, growing with size until one full chunk per channel (S_fill) and constant after that; fitted to
  the rows between 64 KiB and a few MiB, where published curves are flat in time.

Launch mode: the references are nccl-tests' default runs (one host launch per iteration, no CUDA graph),
so the latencies include what that launch costs; NCCL's own tuning model leaves it out.
"""

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal

from app.simulator.source import Source

LatencyClass = Literal["nvlink", "pci", "net"]
Protocol = Literal["LL", "LL128", "Simple"]
Regime = Literal["latency", "ramp", "plateau"]

NCCL_TUNING = Source(
    "NVIDIA/nccl, src/graph/tuning.cc (baseLat, hwLat, protocol bandwidth factors, algorithm choice)",
    "https://github.com/NVIDIA/nccl/blob/master/src/graph/tuning.cc",
)

# NCCL's latency model (tuning.cc): a collective costs baseLat[algorithm][protocol] plus hwLat per step, the
# hardware class being NVLink or PCI inside a node and the network between nodes. Microseconds.
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
# What nccl-tests' default launch mode (one host launch per iteration, no CUDA graph) adds to every collective
# beyond NCCL's own model, which leaves the launch out. Fitted to the latency-bound rows (1-8 KiB) of the GB200
# tray and H200 sweeps: 15.4 us measured vs 10.2 us modelled (4-GPU ring LL) and 29.9 vs 25 us (NVLS).
HOST_LAUNCH_US = 5.0
# tuning.cc: "if (comm->nNodes > 1 && p == NCCL_PROTO_LL) intraLat *= 1.8".
LL_MULTI_NODE_INTRA_FACTOR = 1.8
# tuning.cc: ring Simple all-reduce across nodes, "lat *= 1.9; // Plateau effect of ring".
RING_SIMPLE_MULTI_NODE_FACTOR = 1.9


def protocol_fraction(family: str, protocol: Protocol, op: str) -> float:
    """Share of Simple's bandwidth a protocol keeps (tuning.cc): ring LL 1/4 for all_reduce and reduce (1/3 for
    the others), LL128 0.92, tree LL 1/3.8, tree LL128 120/128; Simple and NVLS 1."""
    if protocol == "Simple":
        return 1.0
    if family == "tree":
        return 1.0 / 3.8 if protocol == "LL" else 120.0 / 128.0
    if protocol == "LL":
        return 0.25 if op in ("all_reduce", "reduce") else 1.0 / 3.0
    return 0.92


# tuning.cc: "if (a == NCCL_ALGO_TREE && coll == ncclFuncAllReduce) busBw = std::min(busBw*.92, ...)".
TREE_EFFICIENCY_FACTOR = 0.92


@dataclass(frozen=True, slots=True)
class FabricCalibration:
    """Achievable fraction of line rate on one fabric for one algorithm family, its ramp and its fill."""

    efficiency: float
    ramp_half_time_us: float
    ramp_exponent: float
    fill_us: float
    fill_bytes: float
    source: Source
    evidence: str
    # What the transport adds to each step beyond NCCL's hwLat: across nodes, a network plugin slower per step
    # than the InfiniBand/RoCE verbs tuning.cc models (aws-ofi-nccl on EFA, gIB on Google's RoCE); inside a
    # node, a ring's NVLink steps where a system's published sweep shows them slower than hwLat (A4X trays).
    extra_step_latency_us: float = 0.0
    # Where a published all_gather plateau shows a ring that moves data without reducing it runs faster than the
    # all-reduce ring the efficiency was fitted to; None: the same efficiency.
    all_gather_efficiency: float | None = None


@dataclass(frozen=True, slots=True)
class ScaleUpCalibration:
    """How a system's scale-up fabric behaves: ring-like traffic, and NVLink SHARP (NVLS) where it has it."""

    latency_class: LatencyClass
    ring: FabricCalibration
    nvls: FabricCalibration | None


_AZURE_A100 = Source(
    "Azure AI benchmarking guide, ND A100 v4 results (all_reduce_perf 1 KiB-8 GiB, 8 x A100 SXM4, NCCL 2.18.5)",
    "https://github.com/Azure/AI-benchmarking-guide/blob/main/Azure_Results/ND_A100_v4_results.md",
)
_AZURE_H100 = Source(
    "Azure AI benchmarking guide, ND H100 v5 results (all_reduce_perf NVLS 1 KiB-8 GiB, 8 x H100, NCCL 2.18.5)",
    "https://github.com/Azure/AI-benchmarking-guide/blob/main/Azure%20Results/ND_H100_v5_results.md",
)
_AZURE_GB200 = Source(
    "Azure AI benchmarking guide, ND GB200 v6 results (all_reduce_perf ring 1 KiB-8 GiB, 4 GPUs of one tray, "
    "NCCL 2.25.1)",
    "https://github.com/Azure/AI-benchmarking-guide/blob/main/Azure_Results/ND_GB200_v6_results.md",
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
_NCCL_1639 = Source(
    "NVIDIA/nccl issue 1639, 8 x RTX 5090 on PCIe 5.0 with two sockets (S. Jeaugey: 'I'm actually impressed that "
    "you can achieve 28GB/s with 8 GPUs')",
    "https://github.com/NVIDIA/nccl/issues/1639",
)

# Ring ramp and fill of a recent NCCL (2.25) on NVLink through NVSwitch, fitted to the Azure ND GB200 v6 sweep
# (4 GPUs of one tray, 1 KiB - 8 GiB): no ramp beyond the latency, and Simple pays a 20 us pipeline fill that
# grows up to 256 KiB. Reused for the rings of the other NVLink 4/5 systems and of PCIe systems, for which no
# mid-size ring sweep was found. (The A100 sweep has its own fit: its harness adds ~28 us at every size.)
_NVSWITCH_RING_RAMP_US = 0.0
_NVSWITCH_RING_RAMP_EXPONENT = 1.0
_NVSWITCH_RING_FILL_US = 20.0
_NVSWITCH_RING_FILL_BYTES = 256 * 1024.0


def _nvswitch_ring(efficiency: float, source: Source, evidence: str) -> FabricCalibration:
    """A ring with the NVSwitch ring's ramp and fill, at ``efficiency`` of line rate."""
    return FabricCalibration(
        efficiency=efficiency,
        ramp_half_time_us=_NVSWITCH_RING_RAMP_US,
        ramp_exponent=_NVSWITCH_RING_RAMP_EXPONENT,
        fill_us=_NVSWITCH_RING_FILL_US,
        fill_bytes=_NVSWITCH_RING_FILL_BYTES,
        source=source,
        evidence=evidence,
    )


_NVLINK_RING = _nvswitch_ring(
    0.82,
    _NCCL_TESTS_212,
    (
        "NCCL rings over NVLink 4 reach about 82% of line rate: 'With the protocol overhead (~20%) NCCL "
        "can get an effective NVLink bandwidth of 370GB/s' on H100 (450 GB/s line rate); fill as fitted to the "
        "GB200 tray sweep (no mid-size H100 ring sweep was found)"
    ),
)

# NVLS on 8 x H100/H200, fitted to the Azure ND H100 v5 and H200 v5 sweeps together (NVLS forced at every
# size): 25 us of NVLS latency plus the launch, then a ramp that reaches half the plateau near 16 MiB.
_H100_NVLS = FabricCalibration(
    efficiency=0.685,
    ramp_half_time_us=5.0,
    ramp_exponent=0.7,
    fill_us=2.0,
    fill_bytes=32 * 1024.0,
    source=_AZURE_H100,
    evidence=(
        "NVLS all_reduce_perf on 8 x H100 reaches a busbw of 478.87 GB/s at 8 GiB (algbw 274 GB/s), "
        "so each NVLink direction carries about 308 GB/s, 68.5% of 450 GB/s"
    ),
)

# Host-bridged PCIe: an 8-GPU box with two sockets runs its ring through PCIe switches, the socket link and
# host memory, not slot to slot. NCCL's maintainer in NVIDIA/nccl#1639: "On PCI systems, the performance you
# get is usually determined by the bandwidth your CPU and memory can deliver ... 8 flows at 28GB/s in both
# directions". 28 GB/s of a Gen5 slot's 63 GB/s is 44%.
_PCIE_HOST_BRIDGED_EFFICIENCY = 28.0 / 63.0
_PCIE_RING = _nvswitch_ring(
    _PCIE_HOST_BRIDGED_EFFICIENCY,
    _NCCL_1639,
    (
        "an 8-GPU, two-socket PCIe 5.0 server reaches about 28 GB/s busbw in all_reduce_perf, 44% of the "
        "63 GB/s slot rate: GPUs share PCIe switches and the socket link and are staged through host memory "
        "(a maintainer calls it impressive); the fill is the NVSwitch ring's, unmeasured on PCIe"
    ),
)

_A100_RING = FabricCalibration(
    efficiency=0.78,
    ramp_half_time_us=10.0,
    ramp_exponent=0.5,
    fill_us=0.0,
    fill_bytes=256 * 1024.0,
    source=_AZURE_A100,
    evidence=(
        "all_reduce_perf on 8 x A100 reaches a busbw of 231.58 GB/s at 8 GiB, 78% of 300 GB/s (with "
        "the ramp, 228 GB/s at 8 GiB); ramp fitted to the same sweep. all_gather rings reach 84.5%: Microsoft "
        "measures an all_gather_perf busbw of 253.59 GB/s at 1 GiB on the same 8 x A100 board, where "
        "all_reduce reaches 231.45 (microsoft/mscclpp docs/performance-ndmv4.md, NCCL 2.17.1)"
    ),
    all_gather_efficiency=253.59 / 300.0,
)

_B200_NVLS = replace(
    _H100_NVLS,
    efficiency=0.6,
    source=_B200_NCCL_1807,
    evidence=(
        "a user reports a peak all_reduce busbw of '830+' GB/s on 8 x B200 (no message size given), "
        "about 60% of 900 GB/s on the wire; ramp and fill assumed equal to H100's (no B200 sweep)"
    ),
)
_GB200_TRAY_RING = _nvswitch_ring(
    0.77,
    _AZURE_GB200,
    (
        "a ring all_reduce_perf over the 4 GPUs of one GB200 tray reaches 679.61 GB/s busbw at "
        "8 GiB, about 76% of NVLink 5's 900 GB/s (77% before the fill); no ramp beyond Simple's 20 us "
        "pipeline fill, fitted to the same sweep"
    ),
)
_NVL72_NVLS = replace(
    _H100_NVLS,
    efficiency=0.49,
    ramp_half_time_us=520.0,
    ramp_exponent=0.9,
    source=_NVL72_COREWEAVE,
    evidence=(
        "a full-rack all_reduce_perf on 72 GPUs reaches a busbw of 834.57 GB/s at 8 GiB and "
        "681.17 GB/s at 1 GiB, about 49% of 900 GB/s on the wire, and needs far larger messages "
        "than 8-GPU NVLS (only 512 MiB and up were published)"
    ),
)
_GOOGLE_A4X = Source(
    "Google Cloud AI Hypercomputer, Run NCCL on custom GKE clusters that use A4X (all_gather_perf 1 KiB - 8 GiB on "
    "two A4X trays of one NVLink domain, 8 GPUs, NCCL/gIB: 'The output is similar to the following')",
    "https://docs.cloud.google.com/ai-hypercomputer/docs/nccl/test-gke-custom-a4x",
)
# Google's A4X across two trays of one NVLink domain (tests/data/nccl_sweeps/google-a4x-2tray-all-gather.json):
# the ring reaches two thirds of the in-tray ring above and each NVLink step costs more than NCCL's hwLat. Fitted
# to that one sweep (python benchmarks/simulator.py prints its residuals), so it checks the shape, not a prediction.
_A4X_CROSS_TRAY_RING = replace(
    _nvswitch_ring(
        0.51,
        _GOOGLE_A4X,
        (
            "fitted to Google's all_gather_perf over two A4X trays (8 GPUs, 1 KiB - 8 GiB): 453.99 GB/s busbw at "
            "8 GiB, about 50% of NVLink 5's 900 GB/s (51% before the fill) and two thirds of the in-tray ring; "
            "24-25 us from 32 KiB to 1 MiB, 1.2 us more per NVLink step than NCCL's hwLat"
        ),
    ),
    extra_step_latency_us=1.2,
)

SCALE_UP_CALIBRATIONS: Mapping[str, ScaleUpCalibration] = MappingProxyType(
    {
        "dgx-a100": ScaleUpCalibration(latency_class="nvlink", ring=_A100_RING, nvls=None),
        "dgx-h100": ScaleUpCalibration(latency_class="nvlink", ring=_NVLINK_RING, nvls=_H100_NVLS),
        "hgx-h200": ScaleUpCalibration(latency_class="nvlink", ring=_NVLINK_RING, nvls=_H100_NVLS),
        "dgx-b200": ScaleUpCalibration(latency_class="nvlink", ring=_NVLINK_RING, nvls=_B200_NVLS),
        "gb200-nvl72": ScaleUpCalibration(latency_class="nvlink", ring=_GB200_TRAY_RING, nvls=_NVL72_NVLS),
        # The AWS instances have the DGX boards; only their network differs (NETWORK_CALIBRATIONS).
        "aws-p4de": ScaleUpCalibration(latency_class="nvlink", ring=_A100_RING, nvls=None),
        "aws-p5": ScaleUpCalibration(latency_class="nvlink", ring=_NVLINK_RING, nvls=_H100_NVLS),
        # Google's A3 Ultra and A4 have the HGX H200 and B200 boards; only their network differs (below).
        "gcp-a3-ultra": ScaleUpCalibration(latency_class="nvlink", ring=_NVLINK_RING, nvls=_H100_NVLS),
        "gcp-a4": ScaleUpCalibration(latency_class="nvlink", ring=_NVLINK_RING, nvls=_B200_NVLS),
        "gcp-a4x": ScaleUpCalibration(latency_class="nvlink", ring=_A4X_CROSS_TRAY_RING, nvls=_NVL72_NVLS),
        "pcie-gen4-8gpu": ScaleUpCalibration(latency_class="pci", ring=_PCIE_RING, nvls=None),
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
# No multi-node full sweep was found with a maintainer's confirmation. The network gets no ramp beyond NCCL's
# own latency: a 20 us ramp fitted earlier counted that latency twice at small sizes (about 20 us extra at
# 8 KiB), and without it the one published mid-size multi-node row (3 nodes of HDR, 96.45 GB/s at 128 MB,
# NVIDIA/nccl-tests issue 119) is within 14 %. The fill is the NVSwitch ring's.
_NET_RAMP_HALF_TIME_US = 0.0
_NET_RAMP_EXPONENT = 1.0


def _network(
    efficiency: float,
    source: Source,
    evidence: str,
    *,
    ramp_half_time_us: float = _NET_RAMP_HALF_TIME_US,
    ramp_exponent: float = _NET_RAMP_EXPONENT,
    extra_step_latency_us: float = 0.0,
) -> FabricCalibration:
    return replace(
        _nvswitch_ring(efficiency, source, evidence),
        ramp_half_time_us=ramp_half_time_us,
        ramp_exponent=ramp_exponent,
        extra_step_latency_us=extra_step_latency_us,
    )


_NDR = _network(
    47.0 / 50.0, _ADDYLADDY_NDR, "NCCL reaches 46-48 GB/s per 400 Gb/s NDR NIC (we take 47, 94% of 50 GB/s)"
)

_AWS_SAMPLES = Source(
    "aws-samples/awsome-distributed-training, micro-benchmarks/nccl-tests/README.md (all_reduce_perf on 2 x "
    "p4de.24xlarge, 8 B - 2 GiB, and on 2 x p5.48xlarge, 8 B - 16 GiB: 'the output should look as below')",
    "https://github.com/aws-samples/awsome-distributed-training/blob/0162aacd5da07d424e13f44bef8dd2c4cfcc66e4/"
    "micro-benchmarks/nccl-tests/README.md",
)
# EFA through the aws-ofi-nccl plugin: no NCCL maintainer figure exists, so all four constants are fitted to AWS's
# own published sweeps (tests/data/nccl_sweeps/aws-p4de-2n.json, aws-p5-2n.json; python benchmarks/simulator.py
# prints the residuals). Small messages take 160 us on two p4de (EFAv1) and 65-80 us on two p5 (EFAv2), where
# InfiniBand takes 20-40 us, and the bandwidth builds up over far larger messages than on InfiniBand: half of the
# plateau only near 100 MB. The ramp is a fit, not a mechanism; the sweeps do not say which protocol NCCL ran.
_EFA_P5 = _network(
    0.75,
    _AWS_SAMPLES,
    "fitted to AWS's 2 x p5.48xlarge sweep (32 x 100 Gb/s EFAv2 per node, 8 B - 16 GiB): 18 us more per "
    "inter-node step than NCCL's InfiniBand latency and a slow ramp (2000 us x bandwidth, exponent 0.45); "
    "NVLS inside the node sets the plateau (487 GB/s busbw at 16 GiB)",
    ramp_half_time_us=2000.0,
    ramp_exponent=0.45,
    extra_step_latency_us=18.0,
)
_EFA_P4DE = _network(
    0.96,
    _AWS_SAMPLES,
    "fitted to AWS's 2 x p4de.24xlarge sweep (4 x 100 Gb/s EFAv1 per node, 8 B - 2 GiB): 60 us more per "
    "inter-node step than NCCL's InfiniBand latency and a slow ramp (4000 us x bandwidth, exponent 0.55), "
    "41.8 GB/s algbw at 2 GiB, 84% of the node's 50 GB/s",
    ramp_half_time_us=4000.0,
    ramp_exponent=0.55,
    extra_step_latency_us=60.0,
)

NETWORK_CALIBRATIONS: Mapping[str, FabricCalibration] = MappingProxyType(
    {
        "ib-edr": _network(12.0 / 12.5, _SJEAUGEY_HDR, "NCCL reaches about 12 GB/s per 100 Gb/s NIC (96% of 12.5)"),
        "ib-hdr": _network(24.0 / 25.0, _SJEAUGEY_HDR, "NCCL reaches about 24 GB/s per 200 Gb/s HDR NIC (96% of 25)"),
        "ib-ndr": _NDR,
        "ib-xdr": _network(
            _NDR.efficiency, _ADDYLADDY_NDR, "no published XDR figure was found; we assume NDR's 94% of line rate"
        ),
        "roce-400g": _network(
            _NDR.efficiency,
            Source(
                "NVIDIA/nccl-tests issue 267 (NVIDIA's D. Addison: 'CX-7 NICs at NDR rate (400Gbps) should achieve "
                "up to 48-49GB/s per NIC', on a RoCE cluster)",
                "https://github.com/NVIDIA/nccl-tests/issues/267",
            ),
            "a 400 Gb/s ConnectX-7 reaches up to 48-49 GB/s; we assume NDR's more typical 94% of line rate",
        ),
        "roce-800g": _network(
            _NDR.efficiency, _ADDYLADDY_NDR, "no published 800 Gb/s RoCE figure was found; we assume NDR's 94%"
        ),
        "efa": _EFA_P5,
    }
)
_GOOGLE_A4_A3_ULTRA = Source(
    "Google Cloud AI Hypercomputer, Run NCCL on custom GKE clusters that use A4 or A3 Ultra (all_gather_perf "
    "1 KiB - 8 GiB on two nodes, 16 GPUs, NCCL/gIB: 'The output is similar to the following')",
    "https://docs.cloud.google.com/ai-hypercomputer/docs/nccl/test-gke-custom",
)
# RoCE through Google's gIB network plugin: like aws-ofi-nccl on EFA, its per-step cost is outside NCCL's tuning
# model and no maintainer figure exists, so the constants are fitted to Google's own published two-node sweeps
# (tests/data/nccl_sweeps/google-a3-ultra-2n-all-gather.json, google-a4-2n-all-gather.json), one per machine
# type: they check the model's shape on two nodes, not a prediction.
# Two constants each, no ramp beyond NCCL's latency (as on InfiniBand). The runs jump by about 16 us (A3 Ultra)
# and 31 us (A4) at 1 MiB, a protocol switch that a least-time choice cannot show: the fitted per-step cost sits
# between the floor below 1 MiB and the rows after the jump (A4's floor is modelled up to x1.34 slow).
_GIB_A3_ULTRA = _network(
    0.85,
    _GOOGLE_A4_A3_ULTRA,
    "fitted to Google's all_gather_perf on 2 x A3 Ultra (8 x 400 Gb/s RoCE per node, 16 GPUs, 1 KiB - 8 GiB): "
    "33 us more per inter-node step than NCCL's InfiniBand/RoCE latency (a 56-65 us floor up to 512 KiB), "
    "330.16 GB/s busbw at 8 GiB, 83% of the node's 400 GB/s (85% before the fill)",
    extra_step_latency_us=33.0,
)
_GIB_A4 = _network(
    0.88,
    _GOOGLE_A4_A3_ULTRA,
    "fitted to Google's all_gather_perf on 2 x A4 (8 x 400 Gb/s RoCE per node, 16 GPUs, 1 KiB - 8 GiB): "
    "34 us more per inter-node step than NCCL's InfiniBand/RoCE latency (a 47-57 us floor up to 512 KiB, then "
    "88 us at 1 MiB), 344.46 GB/s busbw at 8 GiB, 86% of the node's 400 GB/s (88% before the fill)",
    extra_step_latency_us=34.0,
)
# Where one network behaves differently on one system, fitted to that system's own published sweep.
SYSTEM_NETWORK_CALIBRATIONS: Mapping[str, FabricCalibration] = MappingProxyType(
    {"aws-p4de": _EFA_P4DE, "gcp-a3-ultra": _GIB_A3_ULTRA, "gcp-a4": _GIB_A4}
)


def network_calibration(system_id: str, link_id: str) -> FabricCalibration:
    """How the scale-out network of ``system_id`` behaves: its own fit where it has one, else its link's."""
    return SYSTEM_NETWORK_CALIBRATIONS.get(system_id) or NETWORK_CALIBRATIONS[link_id]


# Pipelined hierarchical all-reduce (NVLSTree, or a tree of rings): NCCL moves a message in chunks of
# NCCL_BUFFSIZE / NCCL_STEPS per channel (4 MiB / 8 = 512 KiB by default; NCCL environment documentation), so
# the phases overlap and the slowest bounds, plus one chunk's time through the others (fill and drain).
PIPELINE_CHUNK_BYTES = 512 * 1024
NCCL_ENV = Source(
    "NCCL documentation, environment variables (NCCL_BUFFSIZE default 4 MiB)",
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",
)
