"""Bandwidth simulator: links, preset systems and cost models of NCCL-style collectives.

Pure standard-library Python, deterministic, no I/O. See ``collectives`` for the formulas and
``calibration`` for the measured constants and their sources.
"""

from app.simulator.collectives import (
    ALGORITHMS,
    MAX_MESSAGE_BYTES,
    MIN_MESSAGE_BYTES,
    MODES,
    OPS,
    CollectiveQuery,
    CollectiveResult,
    Phase,
    busbw_factor,
    simulate_collective,
    sweep,
    transfer_time_s,
)
from app.simulator.errors import SimulationError
from app.simulator.links import LINKS, Link, link_to_dict
from app.simulator.source import Source
from app.simulator.systems import SYSTEMS, System, system_to_dict
from app.simulator.training import TrainingStep, training_step

__all__ = [
    "ALGORITHMS",
    "LINKS",
    "MAX_MESSAGE_BYTES",
    "MIN_MESSAGE_BYTES",
    "MODES",
    "OPS",
    "SYSTEMS",
    "CollectiveQuery",
    "CollectiveResult",
    "Link",
    "Phase",
    "SimulationError",
    "Source",
    "System",
    "TrainingStep",
    "busbw_factor",
    "link_to_dict",
    "simulate_collective",
    "sweep",
    "system_to_dict",
    "training_step",
    "transfer_time_s",
]
