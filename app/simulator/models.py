"""Named models over the simulator: one figure from a few parameters, for quiz answers and chapter figures.

A quiz question or a chapter's `{{calc:...}}` placeholder names a model and its parameters. The value returned
is in base units (seconds, bytes per second, or a plain ratio), so the grader, the chapters and the diagrams
share one model and cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from app.simulator import derived
from app.simulator.collectives import CollectiveQuery, CollectiveResult, simulate_collective, transfer_time_s
from app.simulator.errors import SimulationError
from app.simulator.links import LINKS, Link
from app.simulator.systems import SYSTEMS, System
from app.simulator.training import training_step

ParameterValue = str | int


class Dimension(StrEnum):
    TIME = "time"  # seconds
    RATE = "rate"  # bytes per second
    RATIO = "ratio"  # a fraction of 1
    SIZE = "size"  # bytes
    COUNT = "count"  # a whole number of things (GPUs, nodes)


@dataclass(frozen=True, slots=True)
class Computed:
    """The answer in base units, and what the diagnosis of a wrong answer needs to know about the setting."""

    value: float
    ranks: int | None = None  # ranks of a collective: its busbw/algbw factor is a likely slip
    links_per_gpu: int | None = None  # of the link involved: per link versus per GPU is a likely slip
    op: str | None = None
    ratio: float | None = None  # a training step's communication fraction, where the model computes one
    error_percent: float = 0.0  # the calibrated mode's expected error (CollectiveResult.error_percent); 0 if exact


@dataclass(frozen=True, slots=True)
class Model:
    dimension: Dimension
    required: frozenset[str]
    optional: frozenset[str]
    evaluate: Callable[[Mapping[str, ParameterValue]], Computed]


def _int(parameters: Mapping[str, ParameterValue], name: str) -> int:
    value = parameters[name]
    if not isinstance(value, int) or isinstance(value, bool):
        raise SimulationError(name, f"{name} must be a whole number", code="invalid_type", allowed="int")
    return value


def _str(parameters: Mapping[str, ParameterValue], name: str) -> str:
    return str(parameters[name])


def _link(parameters: Mapping[str, ParameterValue]) -> Link:
    link_id = _str(parameters, "link")
    link = LINKS.get(link_id)
    if link is None:
        raise SimulationError("link", f"unknown link '{link_id}'", code="unknown_value", allowed=", ".join(LINKS))
    return link


def _system(parameters: Mapping[str, ParameterValue]) -> System:
    system_id = _str(parameters, "system")
    system = SYSTEMS.get(system_id)
    if system is None:
        raise SimulationError(
            "system", f"unknown system '{system_id}'", code="unknown_value", allowed=", ".join(SYSTEMS)
        )
    return system


def _transfer_time(parameters: Mapping[str, ParameterValue]) -> Computed:
    link = _link(parameters)
    seconds = transfer_time_s(_int(parameters, "message_bytes"), link.per_direction_GBps)
    return Computed(seconds, links_per_gpu=link.links_per_gpu)


def _collective(parameters: Mapping[str, ParameterValue]) -> CollectiveResult:
    message_bytes = _int(parameters, "message_bytes")  # checked first, as the parameters are listed
    return simulate_collective(
        CollectiveQuery(
            _str(parameters, "op"),
            system=_str(parameters, "system"),
            nodes=_int(parameters, "nodes") if "nodes" in parameters else 1,
            gpus_per_node=_int(parameters, "gpus_per_node") if "gpus_per_node" in parameters else None,
            algorithm=_str(parameters, "algorithm") if "algorithm" in parameters else "ring",
            mode=_str(parameters, "mode") if "mode" in parameters else "ideal",
        ),
        message_bytes,
    )


def _collective_time(parameters: Mapping[str, ParameterValue]) -> Computed:
    result = _collective(parameters)
    return Computed(result.time_s, ranks=result.ranks, op=result.op, error_percent=result.error_percent)


def _collective_busbw(parameters: Mapping[str, ParameterValue]) -> Computed:
    result = _collective(parameters)
    return Computed(result.busbw_GBps * 1e9, ranks=result.ranks, op=result.op, error_percent=result.error_percent)


def _collective_algbw(parameters: Mapping[str, ParameterValue]) -> Computed:
    result = _collective(parameters)
    return Computed(result.algbw_GBps * 1e9, ranks=result.ranks, op=result.op, error_percent=result.error_percent)


_LINK_FIELDS = ("per_direction", "bidirectional", "per_link_per_direction")


def _link_bandwidth(parameters: Mapping[str, ParameterValue]) -> Computed:
    link = _link(parameters)
    field = _str(parameters, "field") if "field" in parameters else "per_direction"
    if field not in _LINK_FIELDS:
        raise SimulationError(
            "field", f"unknown field '{field}'", code="unknown_value", allowed=", ".join(_LINK_FIELDS)
        )
    value = getattr(link, f"{field}_GBps")
    if value is None:
        raise SimulationError(
            "field", f"link '{link.id}' has no {field} figure", code="unsupported", allowed=", ".join(_LINK_FIELDS[:2])
        )
    return Computed(float(value) * 1e9, links_per_gpu=link.links_per_gpu)


def _system_bandwidth(parameters: Mapping[str, ParameterValue]) -> Computed:
    """Per GPU, per direction (``per: gpu``) or per node (``per: node``), scale-up or scale-out."""
    system = _system(parameters)
    fabric = _str(parameters, "fabric") if "fabric" in parameters else "scale_up"
    per = _str(parameters, "per") if "per" in parameters else "gpu"
    if fabric not in ("scale_up", "scale_out") or per not in ("gpu", "node"):
        raise SimulationError(
            "fabric",
            "fabric must be scale_up or scale_out, per gpu or node",
            code="unknown_value",
            allowed="scale_up, scale_out; gpu, node",
        )
    per_gpu_GBps = system.scale_up_GBps if fabric == "scale_up" else system.scale_out_GBps
    factor = system.gpus_per_node if per == "node" else 1
    link = LINKS[system.scale_up if fabric == "scale_up" else system.scale_out]
    return Computed(per_gpu_GBps * factor * 1e9, links_per_gpu=link.links_per_gpu)


def _training(parameters: Mapping[str, ParameterValue]) -> Computed:
    step = training_step(
        parameters=_int(parameters, "parameters"),
        system=_str(parameters, "system"),
        nodes=_int(parameters, "nodes"),
        compute_time_s=_int(parameters, "compute_time_ms") / 1000 if "compute_time_ms" in parameters else 1.0,
        bytes_per_gradient=_int(parameters, "bytes_per_gradient") if "bytes_per_gradient" in parameters else 2,
        mode=_str(parameters, "mode") if "mode" in parameters else "calibrated",
        algorithm=_str(parameters, "algorithm") if "algorithm" in parameters else "auto",
        gpus_per_node=_int(parameters, "gpus_per_node") if "gpus_per_node" in parameters else None,
    )
    return Computed(
        step.allreduce_time_s,
        ranks=step.result.ranks,
        op=step.result.op,
        ratio=step.communication_fraction,
        error_percent=step.result.error_percent,
    )


def _training_allreduce_time(parameters: Mapping[str, ParameterValue]) -> Computed:
    return _training(parameters)


def _training_comm_fraction(parameters: Mapping[str, ParameterValue]) -> Computed:
    step = _training(parameters)
    assert step.ratio is not None
    return Computed(step.ratio, ranks=step.ranks, op=step.op, error_percent=step.error_percent)


def _busbw_from_time(parameters: Mapping[str, ParameterValue]) -> Computed:
    op, ranks = _str(parameters, "op"), _int(parameters, "ranks")
    value = derived.busbw_from_time_Bps(op, _int(parameters, "message_bytes"), _int(parameters, "time_us"), ranks)
    return Computed(value, ranks=ranks, op=op)


def _time_from_busbw(parameters: Mapping[str, ParameterValue]) -> Computed:
    op, ranks = _str(parameters, "op"), _int(parameters, "ranks")
    value = derived.time_from_busbw_s(op, _int(parameters, "message_bytes"), _int(parameters, "busbw_GBps"), ranks)
    return Computed(value, ranks=ranks, op=op)


def _algbw_from_busbw(parameters: Mapping[str, ParameterValue]) -> Computed:
    op, ranks = _str(parameters, "op"), _int(parameters, "ranks")
    return Computed(derived.algbw_from_busbw_Bps(op, _int(parameters, "busbw_GBps"), ranks), ranks=ranks, op=op)


def _ring_crossover(parameters: Mapping[str, ParameterValue]) -> Computed:
    link = _link(parameters)
    value = derived.ring_crossover_bytes(
        _int(parameters, "ranks"), _int(parameters, "alpha_us"), link.per_direction_GBps
    )
    return Computed(value, links_per_gpu=link.links_per_gpu)


def _ring_bandwidth_bound_ranks(parameters: Mapping[str, ParameterValue]) -> Computed:
    link = _link(parameters)
    ranks = derived.ring_bandwidth_bound_ranks(
        _int(parameters, "message_bytes"), _int(parameters, "alpha_us"), link.per_direction_GBps
    )
    return Computed(float(ranks), links_per_gpu=link.links_per_gpu)


def _ring_budget(parameters: Mapping[str, ParameterValue]) -> Computed:
    link = _link(parameters)
    value = derived.ring_budget_bytes(
        _int(parameters, "ranks"), _int(parameters, "alpha_us"), link.per_direction_GBps, _int(parameters, "budget_us")
    )
    return Computed(value, ranks=_int(parameters, "ranks"), links_per_gpu=link.links_per_gpu)


def _data_in_time(parameters: Mapping[str, ParameterValue]) -> Computed:
    link = _link(parameters)
    return Computed(
        derived.data_in_time_bytes(link.per_direction_GBps, _int(parameters, "time_ms")),
        links_per_gpu=link.links_per_gpu,
    )


def _node_transfer_time(parameters: Mapping[str, ParameterValue]) -> Computed:
    system = _system(parameters)
    nic = LINKS[system.scale_out]
    return Computed(
        derived.node_transfer_time_s(_int(parameters, "message_bytes"), system.nics_per_node, nic.per_direction_GBps)
    )


def _nccl_size(parameters: Mapping[str, ParameterValue]) -> Computed:
    ranks = _int(parameters, "ranks")
    op = _str(parameters, "op")
    return Computed(float(derived.nccl_size_bytes(op, _int(parameters, "shard_bytes"), ranks)), ranks=ranks, op=op)


def _nvls_time_saved(parameters: Mapping[str, ParameterValue]) -> Computed:
    """How much sooner an NVLS all-reduce ends than a ring one of the same buffer (ideal model): the ring moves
    2(n−1)/n · S per GPU, NVLS (n+1)/n · S."""
    times = [
        _collective({**parameters, "op": "all_reduce", "algorithm": algorithm, "mode": "ideal"}).time_s
        for algorithm in ("ring", "nvls")
    ]
    return Computed(times[0] - times[1], ranks=_int(parameters, "gpus_per_node"), op="all_reduce")


_TRAINING_REQUIRED = frozenset({"parameters", "system", "nodes"})
_TRAINING_OPTIONAL = frozenset({"compute_time_ms", "bytes_per_gradient", "mode", "algorithm", "gpus_per_node"})
_COLLECTIVE_OPTIONAL = frozenset({"nodes", "gpus_per_node", "algorithm", "mode"})
_COLLECTIVE_REQUIRED = frozenset({"op", "message_bytes", "system"})

_NCCL_LINE = frozenset({"op", "message_bytes", "ranks"})

MODELS: Mapping[str, Model] = {
    "transfer_time": Model(Dimension.TIME, frozenset({"message_bytes", "link"}), frozenset(), _transfer_time),
    "collective_time": Model(Dimension.TIME, _COLLECTIVE_REQUIRED, _COLLECTIVE_OPTIONAL, _collective_time),
    "collective_busbw": Model(Dimension.RATE, _COLLECTIVE_REQUIRED, _COLLECTIVE_OPTIONAL, _collective_busbw),
    "collective_algbw": Model(Dimension.RATE, _COLLECTIVE_REQUIRED, _COLLECTIVE_OPTIONAL, _collective_algbw),
    "link_bandwidth": Model(Dimension.RATE, frozenset({"link"}), frozenset({"field"}), _link_bandwidth),
    "system_bandwidth": Model(Dimension.RATE, frozenset({"system"}), frozenset({"fabric", "per"}), _system_bandwidth),
    "training_allreduce_time": Model(Dimension.TIME, _TRAINING_REQUIRED, _TRAINING_OPTIONAL, _training_allreduce_time),
    "training_comm_fraction": Model(
        Dimension.RATIO,
        _TRAINING_REQUIRED | {"compute_time_ms"},
        _TRAINING_OPTIONAL - {"compute_time_ms"},
        _training_comm_fraction,
    ),
    "busbw_from_time": Model(Dimension.RATE, _NCCL_LINE | {"time_us"}, frozenset(), _busbw_from_time),
    "time_from_busbw": Model(Dimension.TIME, _NCCL_LINE | {"busbw_GBps"}, frozenset(), _time_from_busbw),
    "algbw_from_busbw": Model(Dimension.RATE, frozenset({"op", "ranks", "busbw_GBps"}), frozenset(), _algbw_from_busbw),
    "ring_crossover_size": Model(
        Dimension.SIZE, frozenset({"ranks", "alpha_us", "link"}), frozenset(), _ring_crossover
    ),
    "ring_bandwidth_bound_ranks": Model(
        Dimension.COUNT, frozenset({"message_bytes", "alpha_us", "link"}), frozenset(), _ring_bandwidth_bound_ranks
    ),
    "ring_budget_size": Model(
        Dimension.SIZE, frozenset({"ranks", "alpha_us", "link", "budget_us"}), frozenset(), _ring_budget
    ),
    "data_in_time": Model(Dimension.SIZE, frozenset({"link", "time_ms"}), frozenset(), _data_in_time),
    "node_transfer_time": Model(
        Dimension.TIME, frozenset({"message_bytes", "system"}), frozenset(), _node_transfer_time
    ),
    "nccl_size": Model(Dimension.SIZE, frozenset({"op", "shard_bytes", "ranks"}), frozenset(), _nccl_size),
    "nvls_time_saved": Model(
        Dimension.TIME, frozenset({"system", "gpus_per_node", "message_bytes"}), frozenset(), _nvls_time_saved
    ),
}


def compute(model: str, parameters: Mapping[str, ParameterValue]) -> Computed:
    """Raises KeyError for an unknown model and SimulationError for parameters the simulator refuses."""
    return MODELS[model].evaluate(parameters)
