"""The link and system catalogue: ids, sources and both direction figures."""

import pytest

from app.simulator import LINKS, SYSTEMS, CollectiveQuery, link_to_dict, system_to_dict

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
# Added after DESIGN §4's list, for the cloud presets whose scale-out is neither InfiniBand nor RoCE (AWS EFA).
ADDED_LINK_IDS = ["efa"]


def test_link_ids_are_exactly_the_design_ids_in_order() -> None:
    assert list(LINKS) == LINK_IDS + ADDED_LINK_IDS
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


def test_the_catalogues_are_data_files_shipped_with_the_package() -> None:
    import tomllib
    from fnmatch import fnmatch
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    package_data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"
    ]["app.simulator"]
    data_files = sorted((root / "app" / "simulator" / "data").glob("*.json"))
    assert {path.name for path in data_files} >= {"links.json", "systems.json", "published.json"}
    for path in data_files:
        assert any(fnmatch(f"data/{path.name}", pattern) for pattern in package_data), path.name


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"per_direction_GBps": "fast"}, "per_direction_GBps"),
        ({"year": 2020.5}, "year"),
        ({"kind": "sideways"}, "kind"),
        ({"source": {"title": "t"}}, "source"),
        ({"speed": 1}, "speed"),
    ],
)
def test_a_bad_catalogue_record_is_refused_with_its_field_named(change: dict[str, object], named: str) -> None:
    import dataclasses

    from app.simulator import Link
    from app.simulator.catalogue import CatalogueError, build

    record = dataclasses.asdict(LINKS["pcie5"])
    record.update(change)
    with pytest.raises(CatalogueError, match=named):
        build(Link, record, "links.json[2]")


def test_a_good_catalogue_record_round_trips() -> None:
    import dataclasses

    from app.simulator import Link
    from app.simulator.catalogue import build

    link = LINKS["ib-ndr"]
    assert build(Link, dataclasses.asdict(link), "links.json") == link


def test_a_system_record_takes_its_bandwidths_from_the_link_catalogue() -> None:
    import dataclasses

    from app.simulator import System
    from app.simulator.catalogue import CatalogueError, build

    record = {f.name: getattr(SYSTEMS["dgx-h100"], f.name) for f in dataclasses.fields(System) if f.init}
    record["source"] = dataclasses.asdict(record["source"])
    assert build(System, record, "systems.json[1]") == SYSTEMS["dgx-h100"]
    with pytest.raises(CatalogueError, match="unknown"):
        build(System, {**record, "scale_up_GBps": 900.0}, "systems.json[1]")
    with pytest.raises(CatalogueError, match=r"systems\.json\[1\]: unknown link 'nvlink9'"):
        build(System, {**record, "scale_up": "nvlink9"}, "systems.json[1]")


def test_cloud_presets_differ_from_their_dgx_board_only_in_the_network() -> None:
    p5, dgx_h100 = SYSTEMS["aws-p5"], SYSTEMS["dgx-h100"]
    p4de, dgx_a100 = SYSTEMS["aws-p4de"], SYSTEMS["dgx-a100"]
    assert (p5.scale_up, p5.nvls, p5.gpus_per_node) == (dgx_h100.scale_up, dgx_h100.nvls, dgx_h100.gpus_per_node)
    assert (p4de.scale_up, p4de.nvls) == (dgx_a100.scale_up, dgx_a100.nvls)
    assert LINKS["efa"].line_rate_Gbps == 100.0
    # 32 x 100 Gb/s EFA = 400 GB/s per node each way, as 8 x 400 Gb/s InfiniBand; 4 x 100 Gb/s = 50 GB/s per node.
    assert (p5.nics_per_node, p5.scale_out_GBps * p5.gpus_per_node) == (32, 400.0)
    assert (p4de.nics_per_node, p4de.scale_out_GBps * p4de.gpus_per_node) == (4, 50.0)
    assert p4de.scale_out_GBps == dgx_a100.scale_out_GBps / 4


def test_efa_costs_more_per_small_message_than_infiniband_at_the_same_bandwidth() -> None:
    from app.simulator import simulate_collective

    efa = simulate_collective(CollectiveQuery("all_reduce", system="aws-p5", nodes=2), 8)
    infiniband = simulate_collective(CollectiveQuery("all_reduce", system="dgx-h100", nodes=2), 8)
    # AWS's sweep prints 65-75 us for 8 B on two p5; the InfiniBand model stays near NCCL's ~40 us.
    assert efa.time_s > 1.5 * infiniband.time_s
