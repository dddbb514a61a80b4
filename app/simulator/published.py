"""Published nccl-tests sweeps the calibrated mode is checked against, as numbers the simulator can use.

The records as printed (each row's text, the page, its date and caveats) are test data under
``tests/data/nccl_sweeps``; ``data/published.json`` holds the decoded curves and this module loads them, so that
the lab can draw reality beside the model and ``residuals`` can compare them without reading test files. A test
keeps the two equal.
"""

from dataclasses import dataclass

from app.simulator.catalogue import build, load_items


@dataclass(frozen=True, slots=True)
class PublishedSweep:
    """One published ``*_perf`` run: what ran, where it was published, and busbw per size (GB/s = 1e9 B/s)."""

    id: str
    title: str
    url: str
    date: str
    op: str
    system: str
    nodes: int
    gpus_per_node: int
    algorithm: str
    hardware: str
    rows: tuple[tuple[int, float], ...]  # (message_bytes, busbw_GBps)
    known_misses: tuple[tuple[str, str], ...] = ()  # (regime, why the model cannot meet its target there)
    scale_out_GBps: float | None = None  # per GPU, when the cluster had fewer NICs than the preset
    # The printed time of each row in microseconds, where the source prints one (nccl-tests tables do, Azure's
    # busbw-only tables do not): the residual then compares times, which small sizes print exactly while their
    # busbw prints 0.00.
    times_us: tuple[float, ...] = ()

    # Figures quoted one by one (tests/data/nccl_sweeps/maintainer-points.json), however many sizes they cover:
    # checked like a sweep's rows, never drawn as a measured curve nor counted as a full sweep.
    single_figures: bool = False

    @property
    def is_curve(self) -> bool:
        """A published sweep (drawn as a line), not figures quoted one by one."""
        return not self.single_figures


SWEEPS: tuple[PublishedSweep, ...] = tuple(
    build(PublishedSweep, item, f"published.json[{index}]") for index, item in enumerate(load_items("published.json"))
)

BY_ID = {sweep.id: sweep for sweep in SWEEPS}


def sweeps_for(system: str, nodes: int, op: str) -> tuple[PublishedSweep, ...]:
    """The published sweeps of ``op`` on ``system`` with ``nodes`` nodes, for drawing beside the model."""
    return tuple(s for s in SWEEPS if s.system == system and s.nodes == nodes and s.op == op and s.is_curve)
