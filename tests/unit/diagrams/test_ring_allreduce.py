"""ring-allreduce: the chunks each GPU holds after every step, and the time the ideal model gives the steps."""

from __future__ import annotations

import pytest

from app.diagrams import fields, ring_allreduce
from app.simulator import SYSTEMS, CollectiveQuery, simulate_collective


def build(**changes: str) -> ring_allreduce.View:
    form = {**ring_allreduce.DEFAULTS, **changes}
    if "drawn" not in changes:  # the step belongs to the ring on the page
        form["drawn"] = form["gpus"]
    return ring_allreduce.build(form)


@pytest.mark.parametrize("gpus", [2, 3, 4, 8])
def test_times_and_bytes_agree_with_the_simulator(gpus: int) -> None:
    total = simulate_collective(
        CollectiveQuery("all_reduce", system="dgx-h100", gpus_per_node=gpus, algorithm="ring", mode="ideal"), 2**30
    ).time_s
    steps = 2 * (gpus - 1)
    for step in range(steps + 1):
        view = build(gpus=str(gpus), step=str(step), drawn=str(gpus), size="1", unit="GiB")
        assert (view.steps, view.step, len(view.gpus)) == (steps, step, gpus)
        assert view.total_s == total
        assert view.elapsed_s == pytest.approx(total * step / steps)
        assert view.chunk_bytes == 2**30 / gpus
        assert view.sent_bytes == step * 2**30 / gpus
        assert len(view.arrows) == (gpus if step else 0)
        assert [box.state for box in view.timeline].count("current") == (1 if step else 0)
    assert view.bandwidth_GBps == SYSTEMS["dgx-h100"].scale_up_GBps


@pytest.mark.parametrize("gpus", [2, 3, 5, 8])
def test_reduce_scatter_then_all_gather_leaves_every_gpu_with_the_whole_sum(gpus: int) -> None:
    full = (1 << gpus) - 1
    after_reduce_scatter = ring_allreduce.contributions(gpus, gpus - 1)
    for gpu in range(gpus):  # GPU i holds the complete sum of chunk (i+1) mod n, and only that one
        complete = [chunk for chunk in range(gpus) if after_reduce_scatter[gpu][chunk] == full]
        assert complete == [(gpu + 1) % gpus]
    done = ring_allreduce.contributions(gpus, 2 * (gpus - 1))
    assert all(mask == full for row in done for mask in row)
    last = build(gpus=str(gpus), step=str(2 * (gpus - 1)))
    assert last.phase == "done"
    assert all(cell.complete for gpu in last.gpus for cell in gpu.cells)


def test_every_step_sends_one_chunk_to_the_next_gpu() -> None:
    for step in range(1, 7):
        moves = ring_allreduce.transfers(4, step)
        assert [(sender, receiver) for sender, receiver, _ in moves] == [(0, 1), (1, 2), (2, 3), (3, 0)]
        assert sorted(chunk for *_, chunk in moves) == [0, 1, 2, 3]  # each chunk moves once per step
    assert ring_allreduce.transfers(4, 0) == []


def test_a_new_ring_size_starts_again_at_step_zero() -> None:
    view = build(gpus="8", step="5", drawn="4")
    assert (view.gpus_count, view.step, view.phase) == (8, 0, "start")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"gpus": "1"}, "gpus"),
        ({"gpus": "9"}, "gpus"),
        ({"gpus": "four"}, "gpus"),
        ({"gpus": "4", "drawn": "4", "step": "7"}, "step"),  # 2(n-1) = 6 steps
        ({"size": "-1"}, "size"),
        ({"unit": "TiB"}, "unit"),
        ({"system": "gb200-nvl72x"}, "system"),
        ({"system": "no-such-system"}, "system"),
    ],
)
def test_a_bad_field_is_named(changes: dict[str, str], field: str) -> None:
    with pytest.raises(fields.FieldError) as raised:
        build(**changes)
    assert raised.value.problem.field == field
