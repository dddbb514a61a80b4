"""Link speeds written by hand next to a preset's name must be one of that preset's figures.

Chapters should take figures from presets (`{{link:nvlink4:per_direction_GBps}} GB/s`), but prose also quotes
vendors ("NVIDIA's 128 GB/s for PCIe Gen5") and does arithmetic in code blocks. This scan catches the slip that
matters: a hand-written rate bound to a preset's name ("NVLink 5 ... 450 GB/s") that no way of counting that
link gives. A rate binds to a name when the two sit in the same clause with no other rate or name between them,
so "600 GB/s of NVLink next to 128 GB/s of PCIe Gen5" binds only the 128.

What a link's name may stand for: one direction or both, per link or per GPU, after line coding or raw (the
signalling rate vendors quote for PCIe), per lane, in bytes or bits, each within 2 %, since prose rounds
("about 63 GB/s").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app import simulator
from app.simulator.links import Link

_TOLERANCE = 0.02
_RATE = re.compile(r"(?<![\w.,])(?P<number>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(?P<unit>GB/s|Gb/s|TB/s|Tb/s)")
_GBPS_PER_UNIT = {"GB/s": 1.0, "Gb/s": 1 / 8, "TB/s": 1000.0, "Tb/s": 125.0}
# Names as chapters write them, in both languages (product names stay in Latin script in Korean text, where a
# particle may follow a name directly: "XDR은", so word boundaries are ASCII ones).
_NAMES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<![A-Za-z0-9])NVLink[ -]?(?P<n>[1-5])(?![0-9.,]|\s?[x×]\s?[0-9])"), "nvlink{n}"),
    (re.compile(r"(?<![A-Za-z0-9])PCIe[ -]?(?:Gen[ -]?)?(?P<n>[3-6])(?:\.0)?(?![0-9])"), "pcie{n}"),
    (re.compile(r"(?<![A-Za-z0-9-])Gen[ -]?(?P<n>[3-6])(?![0-9])"), "pcie{n}"),
    (re.compile(r"(?<![A-Za-z0-9])(?P<n>EDR|HDR|NDR|XDR)(?![A-Za-z0-9])"), "ib-{n}"),
    (re.compile(r"(?<![0-9] [x×] )(?<![A-Za-z0-9])(?P<n>400) ?GbE(?![A-Za-z0-9])"), "roce-{n}g"),
)
_CLAUSE_END = re.compile(r"[.!?;](?=\s|$)|\|")
# "NVLink 4's 450 GB/s", "NDR NIC당 50 GB/s": a short run of words between name and rate, no other number, no
# conjunction that starts a second item ("NVLink 900 GB/s와 PCIe Gen5 128 GB/s").
_NAME_THEN_RATE_MAX = 16
_LANE_WIDTH = re.compile(r"(?<![A-Za-z0-9])(?:x(?:1|4|8|16)|4x)(?![A-Za-z0-9])")
_NOT_BETWEEN = re.compile(r"[0-9,;]|\b(?:and|or|vs|versus|against|than)\b|와|과|및|또는|보다| 대 ")
# "128 GB/s for Gen5", "450 GB/s of NVLink 4": a rate before its name needs a preposition that ties them.
_RATE_THEN_NAME = re.compile(
    r"^\s*(?:per direction\s+|each way\s+|one way\s+)?(?:of|for|on|over|at)\s+(?:the\s+|an?\s+)?$"
)
# A measurement or a rounding ("about 47 GB/s per NDR NIC", "약 370 GB/s") is not the preset's figure to check.
_APPROXIMATE = re.compile(r"(?:about|around|roughly|nearly|up to|measured|reach(?:es)?|약|최대|실측)\s*$")


@dataclass(frozen=True, slots=True)
class LinkRates:
    """Every rate a link's name can honestly stand for, in GB/s."""

    id: str
    name: str
    rates_GBps: tuple[float, ...]

    def admits(self, rate_GBps: float) -> bool:
        return any(abs(rate_GBps - known) <= _TOLERANCE * known for known in self.rates_GBps)


def link_rates(links: Mapping[str, Link]) -> dict[str, LinkRates]:
    found: dict[str, LinkRates] = {}
    for link in links.values():
        rates = {link.per_direction_GBps, link.bidirectional_GBps}
        if link.per_link_per_direction_GBps is not None:
            rates |= {link.per_link_per_direction_GBps, 2 * link.per_link_per_direction_GBps}
        if link.transfer_rate_GTps is not None and link.lanes is not None:
            raw_per_direction = link.transfer_rate_GTps * link.lanes / 8
            rates |= {raw_per_direction, 2 * raw_per_direction, link.transfer_rate_GTps / 8}
        if link.line_rate_Gbps is not None:
            rates.add(link.line_rate_Gbps / 8)
            if link.lanes:
                rates.add(link.line_rate_Gbps / link.lanes / 8)
        found[link.id] = LinkRates(link.id, link.name, tuple(sorted(rates)))
    return found


SIMULATOR_LINK_RATES: Mapping[str, LinkRates] = link_rates(simulator.LINKS)


@dataclass(frozen=True, slots=True)
class _Token:
    start: int
    end: int
    text: str
    link: str | None = None  # a name's preset id
    rate_GBps: float | None = None  # a rate's value


def _tokens(clause: str, offset: int, known: Mapping[str, LinkRates]) -> list[_Token]:
    tokens = []
    for match in _RATE.finditer(clause):
        value = float(match["number"].replace(",", "")) * _GBPS_PER_UNIT[match["unit"]]
        tokens.append(_Token(offset + match.start(), offset + match.end(), match[0], rate_GBps=value))
    names: list[_Token] = []
    for pattern, template in _NAMES:
        for match in pattern.finditer(clause):
            link = template.format(n=match["n"].lower())
            if link in known:
                names.append(_Token(offset + match.start(), offset + match.end(), match[0], link=link))
    # "PCIe Gen5" also contains "Gen5": keep the longer name.
    tokens += [
        name
        for name in names
        if not any(other is not name and other.start <= name.start and name.end <= other.end for other in names)
    ]
    return sorted(tokens, key=lambda token: token.start)


def _clauses(line: str) -> Iterable[tuple[int, str]]:
    start = 0
    for match in _CLAUSE_END.finditer(line):
        yield start, line[start : match.start()]
        start = match.end()
    yield start, line[start:]


def _bound_name(tokens: list[_Token], position: int, line: str) -> _Token | None:
    """The link name the rate at `position` belongs to, if its wording ties it to one."""
    rate = tokens[position]
    candidates: list[tuple[int, _Token]] = []
    if position > 0 and (before := tokens[position - 1]).link is not None:
        gap = _LANE_WIDTH.sub("", line[before.end : rate.start])
        if len(gap) <= _NAME_THEN_RATE_MAX and not _NOT_BETWEEN.search(gap):
            candidates.append((len(gap), before))
    if position + 1 < len(tokens) and (after := tokens[position + 1]).link is not None:
        gap = line[rate.end : after.start]
        if _RATE_THEN_NAME.match(gap):
            candidates.append((len(gap), after))
    return min(candidates, key=lambda candidate: candidate[0])[1] if candidates else None


def contradicting_rates(text: str, known: Mapping[str, LinkRates] = SIMULATOR_LINK_RATES) -> list[tuple[int, str]]:
    """(0-based line, message) for every hand-written rate bound to a link name that the link's preset denies."""
    problems: list[tuple[int, str]] = []
    for index, line in enumerate(text.split("\n")):
        for offset, clause in _clauses(line):
            tokens = _tokens(clause, offset, known)
            for position, token in enumerate(tokens):
                if token.rate_GBps is None or _APPROXIMATE.search(line[max(0, token.start - 16) : token.start]):
                    continue
                name = _bound_name(tokens, position, line)
                if name is None or name.link is None:
                    continue
                rates = known[name.link]
                if not rates.admits(token.rate_GBps):
                    listed = ", ".join(f"{rate:g}" for rate in rates.rates_GBps)
                    problems.append(
                        (
                            index,
                            f"'{token.text}' next to '{name.text}' is no figure of the {rates.id} preset "
                            f"({rates.name}: {listed} GB/s, counted one way or both, per link or in bits); "
                            f"take it from the preset, e.g. {{{{link:{rates.id}:per_direction_GBps}}}} GB/s",
                        )
                    )
    return problems
