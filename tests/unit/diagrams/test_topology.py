"""topology: the path from GPU A to GPU B, hop by hop, with the simulator's link bandwidths and the bottleneck."""

from __future__ import annotations

import pytest

from app.diagrams import fields, topology
from app.diagrams.svg import text_width
from app.i18n import LANGUAGES
from app.simulator import LINKS
from app.web.i18n import load_translations


def build(**changes: str) -> topology.View:
    form = {**topology.DEFAULTS, **changes}
    if "drawn" not in changes:  # the GPU numbers belong to the machine on the page
        form["drawn"] = form["topology"]
    return topology.build(form)


def links(view: topology.View) -> list[str]:
    return [hop.link_id for hop in view.hops]


@pytest.mark.parametrize(
    ("machine", "a", "b", "path", "nccl"),
    [
        ("dgx-h100", 0, 5, ["nvlink4", "nvlink4"], "NV18"),
        ("pcie-gen5-8gpu", 0, 1, ["pcie5", "pcie5"], "PIX"),  # one PCIe switch
        ("pcie-gen5-8gpu", 0, 2, ["pcie5"] * 4, "PHB"),  # through the CPU
        ("pcie-gen5-8gpu", 0, 5, ["pcie5", "pcie5", "socket", "pcie5", "pcie5"], "SYS"),  # across the sockets
        ("gb200-nvl72", 3, 60, ["nvlink5", "nvlink5"], "NV18"),
        ("rail-fat-tree", 2, 5, ["nvlink4", "nvlink4"], "NV18"),  # inside one node
        ("rail-fat-tree", 2, 10, ["pcie5", "ib-ndr", "ib-ndr", "pcie5"], "NET"),  # one rail: one leaf
        ("rail-fat-tree", 2, 29, ["pcie5", "ib-ndr", "ib-ndr", "ib-ndr", "ib-ndr", "pcie5"], "NET"),  # via a spine
    ],
)
def test_the_path_and_its_bottleneck(machine: str, a: int, b: int, path: list[str], nccl: str) -> None:
    view = build(topology=machine, gpu_a=str(a), gpu_b=str(b))
    assert (view.gpu_a.value, view.gpu_b.value) == (a, b)
    assert links(view) == path
    assert view.nccl_path == nccl
    for hop in view.hops:
        expected = None if hop.link_id == "socket" else LINKS[hop.link_id].per_direction_GBps
        assert hop.per_direction_GBps == expected
    assert view.bottleneck is not None
    assert view.bottleneck.per_direction_GBps == min(
        LINKS[link].per_direction_GBps for link in path if link != "socket"
    )
    assert [hop.number for hop in view.hops] == list(range(1, len(path) + 1))
    for layout in view.layouts:
        assert len(layout.path) >= 1
        roles = {box.key: box.role for box in layout.boxes}
        assert (roles[f"gpu{a}"], roles[f"gpu{b}"]) == ("a", "b")
        for box in layout.boxes:  # everything inside the drawing, the A/B badge too
            assert box.x >= 0
            assert box.y + box.h <= layout.height
            badge = box.badge
            assert box.x + box.w <= layout.width
            if box.role in ("a", "b"):
                assert badge.cx + badge.r <= layout.width
                assert badge.cy - badge.r >= 0


def test_a_gpu_to_itself_has_no_path() -> None:
    view = build(gpu_a="3", gpu_b="3")
    assert (view.hops, view.bottleneck, view.nccl_path) == ((), None, "")
    assert [layout.path for layout in view.layouts] == [(), ()]


def test_picking_another_machine_starts_from_its_example_pair() -> None:
    view = topology.build({"topology": "gb200-nvl72", "gpu_a": "0", "gpu_b": "99", "drawn": "dgx-h100"})
    assert (view.gpu_a.value, view.gpu_b.value) == topology.DEFAULT_PAIRS["gb200-nvl72"]
    assert len(view.gpu_options) == 72


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"topology": "torus"}, "topology"),
        ({"gpu_a": "8"}, "gpu_a"),
        ({"gpu_b": "-1"}, "gpu_b"),
        ({"gpu_b": "five"}, "gpu_b"),
        ({"topology": "gb200-nvl72", "gpu_a": "72", "gpu_b": "0"}, "gpu_a"),
    ],
)
def test_a_bad_field_is_named(changes: dict[str, str], field: str) -> None:
    with pytest.raises(fields.FieldError) as raised:
        build(**changes)
    assert raised.value.problem.field == field


@pytest.mark.parametrize(
    ("machine", "a", "b", "limiting", "all_equal"),
    [
        ("dgx-h100", 0, 5, [1, 2], True),  # two NVLink hops: neither is the bottleneck, they are equal
        ("pcie-gen5-8gpu", 0, 2, [1, 2, 3, 4], True),
        ("pcie-gen5-8gpu", 0, 5, [1, 2, 4, 5], True),  # the socket link has no rate in the presets
        ("rail-fat-tree", 2, 29, [2, 3, 4, 5], False),  # the four InfiniBand hops, not the PCIe ones
        ("rail-fat-tree", 2, 10, [2, 3], False),
    ],
)
def test_the_hops_at_the_lowest_rate_are_named_together(
    machine: str, a: int, b: int, limiting: list[int], all_equal: bool
) -> None:
    view = build(topology=machine, gpu_a=str(a), gpu_b=str(b))
    assert [hop.number for hop in view.limiting] == limiting
    assert view.all_equal is all_equal
    assert view.bottleneck is view.limiting[0]


def test_the_narrow_fat_tree_draws_the_two_nodes_of_the_path() -> None:
    view = build(topology="rail-fat-tree", gpu_a="2", gpu_b="29")
    wide, narrow = view.layouts
    assert (wide.width, narrow.width) == (topology.WIDE, topology.NARROW)
    assert narrow.shown_nodes == (1, 4)
    assert {box.number for box in narrow.boxes if box.kind == "node"} == {1, 4}
    assert topology.fat_tree_nodes_shown(8, 9) == (1, 2)
    assert topology.fat_tree_nodes_shown(24, 25) == (2, 3)


def test_the_address_state_is_the_drawn_pair() -> None:
    form = {"topology": "gb200-nvl72", "gpu_a": "0", "gpu_b": "99", "drawn": "dgx-h100"}
    view = topology.build(form)
    assert topology.state(form, view) == {
        "topology": "gb200-nvl72",
        "gpu_a": "3",
        "gpu_b": "60",
        "drawn": "gb200-nvl72",
    }


def every_drawing() -> list[tuple[str, int, int]]:
    """Each machine with its example pair, and with the pair at its far end (the longest labels: tray 18, GPU 71)."""
    return [(machine, *pair) for machine, pair in topology.DEFAULT_PAIRS.items()] + [
        ("pcie-gen5-8gpu", 7, 0),
        ("gb200-nvl72", 71, 40),
        ("rail-fat-tree", 31, 16),
    ]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("machine", "a", "b"), every_drawing())
def test_every_label_fits_its_box_in_both_languages(language: str, machine: str, a: int, b: int) -> None:
    translate = load_translations()[language].gettext
    view = build(topology=machine, gpu_a=str(a), gpu_b=str(b))
    for layout in view.layouts:
        font_size = topology.FONT_SIZE[layout.name]
        for box in layout.boxes:
            text = topology.label_text(box, translate)
            assert topology.label_fits(box, text, font_size), (layout.name, box.key, text)
            # the outline too: half of the thickest stroke is drawn outside the box
            assert box.x >= topology.LABEL_PADDING
            assert box.x + box.w <= layout.width - topology.LABEL_PADDING, (layout.name, box.key)


def test_the_width_estimate_is_never_below_what_a_browser_draws() -> None:
    # Chromium's bold DejaVu Sans (the widest font of the stack) at 100 px, measured with getComputedTextLength.
    measured = {
        "NVSwitch": 538.0,
        "PCIe switch": 651.0,
        "트레이 10": 450.0,
        "GPU 71": 410.6,
        "Wm": 214.5,
        "NVLink 스위치 트레이 9": 1122.8,
    }
    for text, width in measured.items():
        assert width <= text_width(text, 100) <= 1.15 * width, text
    assert not topology.label_fits(
        topology.Box("t", "tray", 10, 0, 0, 60, 20, label=topology.Label("트레이 %(number)d", 6, 15, "start")),
        "트레이 10",
        14.5,
    )


@pytest.mark.parametrize(("machine", "a", "b"), every_drawing())
def test_the_a_and_b_badges_leave_the_gpu_number_whole(machine: str, a: int, b: int) -> None:
    view = build(topology=machine, gpu_a=str(a), gpu_b=str(b))
    for layout in view.layouts:
        font_size = topology.FONT_SIZE[layout.name]
        for box in layout.boxes:
            if box.role not in ("a", "b") or box.label is None:
                continue
            text = topology.label_text(box, lambda message: message)
            width = text_width(text, font_size)
            right = box.label.x + (width if box.label.anchor == "start" else width / 2)
            top = box.label.y - topology.ASCENT * font_size
            badge = box.badge
            # The badge's lowest point left of the number's right edge stays above the number's top.
            clear_below = badge.cy + badge.r <= top
            clear_beside = badge.cx - badge.r >= right
            assert clear_below or clear_beside, (layout.name, box.key, badge, right, top)
