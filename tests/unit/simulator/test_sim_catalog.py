"""The link and system catalogue: ids, sources and both direction figures."""

import pytest

from app.simulator import LINKS, SYSTEMS, link_to_dict, system_to_dict

LINK_IDS = [
    "pcie3",
    "pcie4",
    "pcie5",
    "pcie6",
    "nvlink1",
    "nvlink2",
    "nvlink3",
    "nvlink4",
    "nvlink5",
    "ib-edr",
    "ib-hdr",
    "ib-ndr",
    "ib-xdr",
    "roce-400g",
    "roce-800g",
]


def test_link_ids_are_exactly_the_design_ids_in_order() -> None:
    assert list(LINKS) == LINK_IDS
    assert all(key == link.id for key, link in LINKS.items())


def test_required_systems_exist() -> None:
    assert {"dgx-a100", "dgx-h100", "dgx-b200", "gb200-nvl72", "pcie-gen4-8gpu", "pcie-gen5-8gpu"} <= set(SYSTEMS)


@pytest.mark.parametrize("link", LINKS.values(), ids=list(LINKS))
def test_link_figures_are_consistent_and_sourced(link: object) -> None:
    from app.simulator import Link

    assert isinstance(link, Link)
    assert link.bidirectional_GBps == 2 * link.per_direction_GBps
    assert link.source.url.startswith("https://")
    assert link.source.title
    assert 2009 < link.year < 2030
    if link.id.startswith("nvlink"):
        assert link.links_per_gpu is not None
        assert link.per_link_per_direction_GBps is not None
        assert link.links_per_gpu * link.per_link_per_direction_GBps == link.per_direction_GBps
    if link.line_rate_Gbps is not None:
        assert link.line_rate_Gbps / 8 == link.per_direction_GBps
    if link.id.startswith("pcie"):
        assert link.lanes == 16
        assert link.transfer_rate_GTps is not None


def test_pcie_per_direction_follows_from_transfer_rate_and_coding() -> None:
    for link_id in ("pcie3", "pcie4", "pcie5"):
        link = LINKS[link_id]
        assert link.transfer_rate_GTps is not None
        assert link.per_direction_GBps == pytest.approx(link.transfer_rate_GTps * 16 * 128 / 130 / 8, rel=0.01)
    assert LINKS["pcie6"].per_direction_GBps == pytest.approx(64 * 16 / 8 * 242 / 256)


@pytest.mark.parametrize("system", SYSTEMS.values(), ids=list(SYSTEMS))
def test_systems_refer_to_catalogue_links(system: object) -> None:
    from app.simulator import System

    assert isinstance(system, System)
    assert LINKS[system.scale_up].kind in ("scale-up", "host")
    assert LINKS[system.scale_out].kind == "scale-out"
    assert system.scale_up_GBps == LINKS[system.scale_up].per_direction_GBps
    assert system.scale_out_GBps * system.gpus_per_node == (
        LINKS[system.scale_out].per_direction_GBps * system.nics_per_node
    )
    assert system.source.url.startswith("https://")
    assert system.max_nodes >= 1
    assert not system.nvls or system.scale_up.startswith("nvlink")


def test_dgx_h100_figures() -> None:
    h100 = SYSTEMS["dgx-h100"]
    assert (h100.gpus_per_node, h100.scale_up_GBps, h100.scale_out_GBps, h100.nvls) == (8, 450.0, 50.0, True)
    assert h100.scale_out_GBps * h100.gpus_per_node == 400.0  # 8 rails x 400 Gb/s per node per direction


def test_link_to_dict_fields() -> None:
    payload = link_to_dict(LINKS["nvlink4"])
    assert payload == {
        "id": "nvlink4",
        "name": LINKS["nvlink4"].name,
        "kind": "scale-up",
        "per_direction_GBps": 450.0,
        "bidirectional_GBps": 900.0,
        "year": 2022,
        "source": LINKS["nvlink4"].source.url,
    }


def test_system_to_dict_fields() -> None:
    payload = system_to_dict(SYSTEMS["gb200-nvl72"])
    assert list(payload) == [
        "id",
        "name",
        "gpus_per_node",
        "scale_up",
        "scale_up_GBps",
        "nvls",
        "scale_out",
        "scale_out_GBps",
        "max_nodes",
        "source",
    ]
    assert payload["gpus_per_node"] == 72
    assert payload["scale_up"] == "nvlink5"
