"""The shapes every cost formula shares: a validated query, the stages it runs, and one algorithm x protocol.

``ideal`` and ``calibrated`` turn a ``Setting`` into ``Term``s; ``make_variant`` groups the terms of one
algorithm run with one protocol and, when it can, folds them into a closed form that ``evaluation`` computes in
a few operations per size.
"""

from dataclasses import dataclass

from app.simulator.systems import System

GB = 1e9
US = 1e-6


@dataclass(frozen=True, slots=True)
class Setting:
    """The validated inputs of a plan and the line rates they resolve to."""

    op: str
    system: System
    mode: str
    nodes: int
    gpus_per_node: int
    ranks: int
    scale_up_Bps: float
    scale_out_Bps: float
    alpha_s: float | None
    assumptions: tuple[str, ...]


def scale_up_link(setting: Setting) -> str:
    return setting.system.scale_up


def scale_out_link(setting: Setting) -> str:
    return setting.system.scale_out


@dataclass(frozen=True, slots=True)
class Term:
    """One stage: ``latency_s + traffic_factor * S * ramp(S) / bandwidth_Bps + fill_s * min(1, S / fill_bytes)``,
    ramp(S) = 1 + (half_bytes / S) ** p.

    ``traffic_factor`` is the bytes the busiest link carries per byte of message; ``half_bytes`` and ``fill_s``
    are 0 in ideal mode (no ramp, no pipeline fill). A stage that crosses two fabrics (a flat ring over nodes,
    or the pipelined phases of a hierarchical all-reduce) also has an ``alt_`` limit; the slower of the two
    sets its time at each size, so the time falls whenever either bandwidth rises.
    """

    phase: str
    link: str
    latency_s: float
    traffic_factor: float
    bandwidth_Bps: float
    half_bytes: float
    ramp_exponent: float
    alt_link: str = ""
    alt_bandwidth_Bps: float = 0.0
    alt_half_bytes: float = 0.0
    alt_ramp_exponent: float = 1.0
    fill_s: float = 0.0
    fill_bytes: float = 1.0


@dataclass(frozen=True, slots=True)
class Variant:
    """One algorithm run with one protocol."""

    algorithm: str
    protocol: str
    terms: tuple[Term, ...]
    # When every term shares the same limits, the total time has a closed form: (latency_s, s_per_byte,
    # half_bytes, exponent, alt_s_per_byte, alt_half_bytes, alt_exponent, fill_s, fill_bytes).
    closed_form: tuple[float, float, float, float, float, float, float, float, float] | None = None


def make_variant(algorithm: str, protocol: str, terms: tuple[Term, ...]) -> Variant:
    """The variant, with the closed form sum(latency) + sum(traffic) * S * ramp(S) / B + sum(fill) when all terms
    share B and the fill's size."""
    first = terms[0]
    limits = {
        (
            t.bandwidth_Bps,
            t.half_bytes,
            t.ramp_exponent,
            t.alt_bandwidth_Bps,
            t.alt_half_bytes,
            t.alt_ramp_exponent,
            t.fill_bytes,
        )
        for t in terms
    }
    if len(limits) != 1:
        return Variant(algorithm, protocol, terms)
    traffic = sum(t.traffic_factor for t in terms)
    closed_form = (
        sum(t.latency_s for t in terms),
        traffic / first.bandwidth_Bps,
        first.half_bytes,
        first.ramp_exponent,
        traffic / first.alt_bandwidth_Bps if first.alt_bandwidth_Bps > 0.0 else 0.0,
        first.alt_half_bytes,
        first.alt_ramp_exponent,
        sum(t.fill_s for t in terms),
        first.fill_bytes,
    )
    return Variant(algorithm, protocol, terms, closed_form)
