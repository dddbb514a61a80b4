"""The question every collective simulation answers, besides the message size: one frozen value.

A ``CollectiveQuery`` names the operation, the preset and how much of it is used, the algorithm and mode, and the
overrides of the preset's per-GPU per-direction bandwidths (GB/s = 1e9 B/s) and of the per-step latency (us). It is
the same for every size of a sweep, so it is also the key under which its plan is cached (``planning``). Fields are
checked when the plan is built, not here, so that a bad value raises ``SimulationError`` naming its API parameter,
in the order ``planning`` documents.
"""

from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class CollectiveQuery:
    """``op`` on ``nodes`` x ``gpus_per_node`` GPUs of ``system`` (default: all of a node's GPUs).

    ``algorithm``: auto (the fastest the model knows) or one of ALGORITHMS; ``mode``: calibrated or ideal;
    ``scale_up_GBps``, ``scale_out_GBps``, ``alpha_us``: None keeps the preset's figure.
    """

    op: str
    system: str = "dgx-h100"
    nodes: int = 1
    gpus_per_node: int | None = None
    algorithm: str = "auto"
    mode: str = "calibrated"
    scale_up_GBps: float | None = None
    scale_out_GBps: float | None = None
    alpha_us: float | None = None


FIELD_NAMES: tuple[str, ...] = tuple(field.name for field in fields(CollectiveQuery))


def cache_key(query: CollectiveQuery) -> tuple[object, ...]:
    """The query and the type of each field: equal dataclasses compare 1 == 1.0 == True, but a plan built for
    nodes=1 must not answer nodes=1.0 or nodes=True, which validation refuses."""
    return (query, *(type(getattr(query, name)) for name in FIELD_NAMES))
