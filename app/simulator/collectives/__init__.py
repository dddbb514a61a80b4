"""Cost models of NCCL-style collectives: how long one takes, and the bandwidths nccl-tests would print.

Notation: n ranks = N nodes x g GPUs per node, S the nccl-tests "size" in bytes, B a per-GPU per-direction
bandwidth in bytes/s, a the per-step latency. The formulas live with the code that computes them:

    validation    what the simulator accepts (ops, algorithms, modes, ranges) and the SimulationError it raises
    query         CollectiveQuery, the frozen value every entry point takes besides the size
    planning      per query: which algorithms run, on how many ranks, at which line rates, as which variants
    ideal         ideal mode, the pure alpha-beta table of DESIGN §4, and the time over one link
    calibrated    calibrated mode: achievable bandwidths, NCCL's latency model, the bandwidth ramp, protocols
    assumptions   the sentences (and sources) each result lists under ``assumptions``
    terms         the stage and variant shapes the formulas produce
    evaluation    one size of a plan: fastest variant, phases, bottleneck, algbw and busbw
    results       CollectiveResult and Phase, the nccl-tests busbw factor
    simulate      the entry points simulate_collective and sweep

This module only re-exports the public API.
"""

from app.simulator.collectives.ideal import transfer_time_s
from app.simulator.collectives.planning import cached_plan as _cached_plan
from app.simulator.collectives.query import CollectiveQuery
from app.simulator.collectives.results import CollectiveResult, Phase, busbw_factor
from app.simulator.collectives.simulate import simulate_collective, sweep
from app.simulator.collectives.simulate import sweep_plan as _sweep_plan
from app.simulator.collectives.validation import (
    ALGORITHMS,
    MAX_ALPHA_US,
    MAX_BANDWIDTH_OVERRIDE_GBPS,
    MAX_MESSAGE_BYTES,
    MIN_BANDWIDTH_OVERRIDE_GBPS,
    MIN_MESSAGE_BYTES,
    MODES,
    OPS,
)

__all__ = [
    "ALGORITHMS",
    "MAX_ALPHA_US",
    "MAX_BANDWIDTH_OVERRIDE_GBPS",
    "MAX_MESSAGE_BYTES",
    "MIN_BANDWIDTH_OVERRIDE_GBPS",
    "MIN_MESSAGE_BYTES",
    "MODES",
    "OPS",
    "CollectiveQuery",
    "CollectiveResult",
    "Phase",
    "_cached_plan",  # the two caches benchmarks/simulator.py clears to time a cold sweep
    "_sweep_plan",
    "busbw_factor",
    "simulate_collective",
    "sweep",
    "transfer_time_s",
]
