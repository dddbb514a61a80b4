from __future__ import annotations

from pathlib import Path

import pytest

from app.content.typography import WIDE_RUN_MAX, align_wide_characters, bind_units

NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("NVLink 4 gives 450 GB/s per direction", f"NVLink 4 gives 450{NBSP}GB/s per direction"),
        ("1.8 TB/s, or 3.6 Tb/s", f"1.8{NBSP}TB/s, or 3.6{NBSP}Tb/s"),
        ("a 400 Gb/s port", f"a 400{NBSP}Gb/s port"),
        ("up to 1,024 GPUs", f"up to 1,024{NBSP}GPUs"),
        ("1 GiB = 1,073,741,824 bytes", f"1{NBSP}GiB = 1,073,741,824{NBSP}bytes"),
        ("UALink's 150–250 ns switch", f"UALink's 150–250{NBSP}ns switch"),
        ("4.18 ms, 47.6 µs, 14 µs", f"4.18{NBSP}ms, 47.6{NBSP}µs, 14{NBSP}µs"),
        ("about 30 W, 120 kW per rack", f"about 30{NBSP}W, 120{NBSP}kW per rack"),
        ("a 2 m copper cable", f"a 2{NBSP}m copper cable"),
        ("32 GT/s", f"32{NBSP}GT/s"),
        # Korean: a particle follows the unit directly, and the unit still binds.
        ("합치면 단방향 450 GB/s로 PCIe", f"합치면 단방향 450{NBSP}GB/s로 PCIe"),
        ("8 B부터 1 MiB까지", f"8{NBSP}B부터 1{NBSP}MiB까지"),
    ],
)
def test_a_number_is_bound_to_its_unit(text: str, expected: str) -> None:
    assert bind_units(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "eight H100 GPUs",  # the number ends a product name
        "NVLink 4 and PCIe Gen5",  # a generation, not a quantity
        "x16 GB",  # a lane width
        "4 GPUDirect paths",  # a unit must not run on into a word
        "5 minutes and 3 more",
        "2 Bytes-per-lane",
        "18 links",
        "450\u00a0GB/s already",
        "a ratio of 1.5 GBs",
    ],
)
def test_what_is_not_a_number_and_unit_is_left_alone(text: str) -> None:
    assert bind_units(text) == text


def test_only_one_ordinary_space_becomes_unbreakable() -> None:
    assert bind_units("450  GB/s") == "450  GB/s"  # two spaces: a slip in the source, not a quantity to bind
    assert bind_units("450\nGB/s") == "450\nGB/s"


def test_wide_characters_get_two_columns_each() -> None:
    assert align_wide_characters("필요한 트레이    = 9개") == (
        '<span class="wide wide-3">필요한</span> <span class="wide wide-3">트레이</span>'
        '    = 9<span class="wide wide-1">개</span>'
    )


def test_narrow_text_and_markup_are_untouched() -> None:
    code = '<span class="mi">450</span> GB/s &lt;- × − → µs'
    assert align_wide_characters(code) == code


def test_a_long_run_is_split_into_spans_the_stylesheet_knows() -> None:
    run = "가" * (WIDE_RUN_MAX + 3)
    wrapped = align_wide_characters(run)
    assert wrapped == (
        f'<span class="wide wide-{WIDE_RUN_MAX}">{"가" * WIDE_RUN_MAX}</span><span class="wide wide-3">가가가</span>'
    )


def test_the_stylesheet_sizes_every_run_length() -> None:
    css = (Path(__file__).resolve().parents[3] / "static" / "css" / "site.css").read_text("utf-8")
    for length in range(1, WIDE_RUN_MAX + 1):
        assert f".prose pre .wide-{length} {{ width: {2 * length}ch; }}" in css
