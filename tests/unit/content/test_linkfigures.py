"""Hand-written link rates next to a preset's name: what binds to the name, and what the preset admits."""

from __future__ import annotations

import pytest

from app import simulator
from app.content.linkfigures import SIMULATOR_LINK_RATES, contradicting_rates


@pytest.mark.parametrize(
    "text",
    [
        "NVLink 4 gives each H100 450 GB/s per direction; the headline 900 GB/s adds both.",
        "NVLink 4's 900 GB/s headline adds both directions.",
        "an H100 NVL lists 600 GB/s of NVLink next to 128 GB/s of PCIe Gen5",
        "31.5 GB/s per direction for Gen4, 15.75 GB/s for Gen3",
        "A PCIe Gen5 x16 slot carries about 63 GB/s per direction (64 GB/s raw).",
        "NDR 400 Gb/s is 50 GB/s each way; XDR runs 800 Gb/s.",
        "NCCL reaches about 47 GB/s per NDR NIC.",  # a measurement, not the preset's figure
        "NVLink 5 links carry 100 GB/s counted both ways, 50 GB/s per direction.",
        "EDR, HDR, NDR, XDR이 각각 25, 50, 100, 200 Gb/s입니다",  # a list: no rate sits next to its name
        "NVLink 900 GB/s 대 PCIe Gen5 128 GB/s",
        "NVLink 5는 단방향 {{link:nvlink5:per_direction_GBps}} GB/s입니다.",  # placeholders are not hand-written
    ],
)
def test_rates_the_presets_admit_pass(text: str) -> None:
    assert contradicting_rates(text) == []


@pytest.mark.parametrize(
    ("text", "rate", "name"),
    [
        ("Blackwell's NVLink 5 gives 450 GB/s per direction.", "450 GB/s", "NVLink 5"),
        ("It moves 450 GB/s of NVLink 5 traffic.", "450 GB/s", "NVLink 5"),
        ("NVLink 5는 단방향 450 GB/s입니다.", "450 GB/s", "NVLink 5"),
        ("A PCIe Gen4 x16 slot: 16 GB/s per direction.", "16 GB/s", "PCIe Gen4"),
        ("an XDR port runs 400 Gb/s", "400 Gb/s", "XDR"),
        ("HDR 800 Gb/s ports", "800 Gb/s", "HDR"),
    ],
)
def test_a_rate_no_counting_of_the_named_link_gives_is_reported(text: str, rate: str, name: str) -> None:
    (line, message), *others = contradicting_rates(f"first line\n{text}")
    assert others == []
    assert line == 1
    assert message.startswith(f"'{rate}' next to '{name}' is no figure of the")


def test_every_link_preset_admits_its_own_figures() -> None:
    for link in simulator.LINKS.values():
        rates = SIMULATOR_LINK_RATES[link.id]
        assert rates.admits(link.per_direction_GBps)
        assert rates.admits(link.bidirectional_GBps)
        assert not rates.admits(link.per_direction_GBps * 3)
