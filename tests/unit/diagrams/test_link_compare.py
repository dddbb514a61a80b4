"""link-compare: every link preset's per-direction bandwidth and the time to move a buffer over it."""

from __future__ import annotations

import pytest

from app.diagrams import fields, link_compare
from app.diagrams.units import format_seconds
from app.simulator import LINKS, transfer_time_s


def build(**changes: str) -> link_compare.View:
    return link_compare.build({**link_compare.DEFAULTS, **changes})


def test_every_link_is_drawn_with_the_simulators_bandwidth_and_time() -> None:
    view = build(size="4", unit="GiB")
    assert view.size_bytes == 4 * 2**30
    assert sorted(row.link_id for row in view.rows) == sorted(LINKS)
    for row in view.rows:
        link = LINKS[row.link_id]
        assert (row.per_direction_GBps, row.bidirectional_GBps) == (link.per_direction_GBps, link.bidirectional_GBps)
        assert row.time_s == transfer_time_s(view.size_bytes, link.per_direction_GBps)
        assert row.time_label == format_seconds(row.time_s)
        assert row.quoted_both_ways is (link.kind != "scale-out")
    assert view.fastest.per_direction_GBps == max(link.per_direction_GBps for link in LINKS.values())
    assert view.slowest.per_direction_GBps == min(link.per_direction_GBps for link in LINKS.values())


def test_rows_are_grouped_by_kind_and_bars_grow_with_bandwidth() -> None:
    view = build()
    for layout in view.layouts:
        assert [group.kind for group in layout.groups] == list(link_compare.KINDS)
        drawn = [row for group in layout.groups for row in group.rows]
        for group in layout.groups:
            assert all(row.row.kind == group.kind for row in group.rows)
        drawn.sort(key=lambda row: row.row.per_direction_GBps)
        assert [row.bar_width for row in drawn] == sorted(row.bar_width for row in drawn)
        assert all(row.both_width >= row.bar_width for row in drawn)
        frame = layout.frame
        assert all(frame.bar_start + row.both_width <= frame.bar_end + 0.1 for row in drawn)
        assert frame.bar_end <= frame.width
    assert [layout.width for layout in view.layouts] == [720, 300]


def test_decimal_and_binary_units_are_told_apart() -> None:
    assert build(size="1", unit="GB").size_bytes == 10**9
    assert build(size="1", unit="GiB").size_bytes == 2**30
    assert build(size="1.5", unit="MiB").size_bytes == 3 * 2**19
    nvlink4 = next(row for row in build(size="1", unit="GB").rows if row.link_id == "nvlink4")
    assert nvlink4.time_s == pytest.approx(1e9 / 450e9)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"size": "0"}, "size"),
        ({"size": "lots"}, "size"),
        ({"size": "1025", "unit": "GiB"}, "size"),  # beyond 1 TiB
        ({"size": "0.0000001", "unit": "MB"}, "size"),  # less than a byte
        ({"unit": "TB"}, "unit"),
        ({"scale": "cubic"}, "scale"),
    ],
)
def test_a_bad_field_is_named(changes: dict[str, str], field: str) -> None:
    with pytest.raises(fields.FieldError) as raised:
        build(**changes)
    assert raised.value.problem.field == field
