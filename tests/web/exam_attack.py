"""The exam's attackers and its honest learner, as scripts over the site's public API (a helper module, not a
test module).

`Transcriber` knows none of the material: it reads a numeric prompt's figures (sizes, whole numbers, link and
system names, operations, algorithm and mode words) and puts them into the public simulator and catalogue
endpoints in every way that fits: `/api/v1/simulate/collective` with each system, operation, algorithm, mode,
size and each whole number as the GPU count, the node count or α, and `/api/v1/links` and `/api/v1/systems`
for every named link or system (each figure as it is, and a size divided by it). `candidates` is everything it
can produce in the question's unit; `guess` is the first of them, in the order a script would try first.

`KnowingLearner` answers as the chapters teach: the worked questions by their formulas (written here again,
from the chapters, not taken from the bank), the look-ups by reading the lab for the asked parameters, the
choice questions from the material.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import urlencode

from fastapi.testclient import TestClient

from app.quiz.units import unit_named
from app.simulator.models import Dimension

_SIZE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(B|KiB|MiB|GiB|TiB)\b")
_NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?![\w.])")
_BINARY = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
_OPS = {
    "all_reduce": ("all-reduce", "all_reduce", "allreduce"),
    "all_gather": ("all-gather", "all_gather"),
    "reduce_scatter": ("reduce-scatter", "reduce_scatter"),
    "all_to_all": ("all-to-all", "all_to_all"),
    "broadcast": ("broadcast",),
    "sendrecv": ("send/recv", "sendrecv", "hands", "sends"),
}
_ALGORITHMS = {
    "ring": ("ring",),
    "tree": ("tree",),
    "nvls": ("nvls", "nvlink sharp", "in-switch"),
    "hierarchical": ("hierarchical",),
    "direct": ("all-to-all", "direct"),
}


def _number(text: str) -> float:
    return float(text.replace(",", ""))


@dataclass
class Transcriber:
    client: TestClient
    calls: int = 0
    _cache: dict[str, Any] = field(default_factory=dict)

    def _get(self, path: str, **query: Any) -> Any:
        url = f"{path}?{urlencode(query)}" if query else path
        if url not in self._cache:
            self.calls += 1
            response = self.client.get(url)
            self._cache[url] = response.json() if response.status_code == 200 else None
        return self._cache[url]

    @cached_property
    def links(self) -> list[dict[str, Any]]:
        return list(self._get("/api/v1/links"))

    @cached_property
    def systems(self) -> list[dict[str, Any]]:
        return list(self._get("/api/v1/systems"))

    def _named(self, prompt: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
        """The links and systems the prompt names, longest name first, and the prompt without those names."""
        rest = prompt
        found_systems = []
        for system in sorted(self.systems, key=lambda s: -len(s["name"])):
            short = system["name"].removeprefix("NVIDIA ")
            if short in rest:
                found_systems.append(system)
                rest = rest.replace(short, " ")
        found_links = []
        for link in sorted(self.links, key=lambda item: -len(item["name"])):
            if link["name"] in rest:
                found_links.append(link)
                rest = rest.replace(link["name"], " ")
        return found_links, found_systems, rest

    def candidates(self, prompt: str, unit: str) -> Iterator[float]:
        """Every value the prompt's figures give through the public API, in `unit`, most natural first."""
        wanted = unit_named(unit)
        links, systems, rest = self._named(prompt)
        sizes = [round(_number(value) * _BINARY[prefix]) for value, prefix in _SIZE.findall(rest)]
        rest = _SIZE.sub(" ", rest)
        numbers = [_number(value) for value in _NUMBER.findall(rest)]
        whole = [int(value) for value in numbers if value == int(value) and value > 0]
        lower = prompt.lower()
        ops = [op for op, words in _OPS.items() if any(word in lower for word in words)] or ["all_reduce"]
        algorithms = [name for name, words in _ALGORITHMS.items() if any(word in lower for word in words)]
        modes = [mode for mode in ("ideal", "calibrated") if mode in lower] or ["ideal", "calibrated"]
        if not systems:  # a named link stands for the systems built on it
            ids = {link["id"] for link in links}
            systems = [s for s in self.systems if s["scale_up"] in ids or s["scale_out"] in ids]

        def in_unit(value: float, dimension: Dimension) -> Iterator[float]:
            if dimension == wanted.dimension and value > 0:
                yield value / wanted.to_base

        for link in links:  # the links table: a size over a link, or its figures
            for size in sizes:
                for rate in (link["per_direction_GBps"], link["bidirectional_GBps"]):
                    yield from in_unit(size / (rate * 1e9), Dimension.TIME)
            for rate in (link["per_direction_GBps"], link["bidirectional_GBps"]):
                yield from in_unit(rate * 1e9, Dimension.RATE)
        for system in systems:  # the systems table
            for rate in (system["scale_up_GBps"], system["scale_out_GBps"]):
                for size in sizes:
                    yield from in_unit(size / (rate * 1e9), Dimension.TIME)
                yield from in_unit(rate * 1e9, Dimension.RATE)
        counts: list[dict[str, int]] = [{}]
        counts += [{"gpus_per_node": number} for number in whole if 2 <= number <= 72]
        counts += [{"nodes": number} for number in whole if 2 <= number <= 4096]
        alphas: list[dict[str, int]] = [{}]
        if "α" in prompt:
            alphas += [{"alpha_us": number} for number in whole if number <= 1000]
        for system in systems:
            for op in ops:
                for algorithm in [*algorithms, "auto"]:
                    for mode in modes:
                        for size in sizes:
                            for count in counts:
                                for alpha in alphas if mode == "ideal" else [{}]:
                                    yield from self._simulated(
                                        system, op, algorithm, mode, size, count | alpha, in_unit
                                    )

    def _simulated(
        self, system: dict[str, Any], op: str, algorithm: str, mode: str, size: int, extra: dict[str, int], in_unit: Any
    ) -> Iterator[float]:
        query = {"op": op, "message_bytes": size, "system": system["id"], "algorithm": algorithm, "mode": mode}
        result = self._get("/api/v1/simulate/collective", **query, **extra)
        if result is None:
            return
        yield from in_unit(result["time_s"], Dimension.TIME)
        yield from in_unit(result["busbw_GBps"] * 1e9, Dimension.RATE)
        yield from in_unit(result["algbw_GBps"] * 1e9, Dimension.RATE)

    def guess(self, prompt: str, unit: str) -> float | None:
        return next(self.candidates(prompt, unit), None)

    def hits(self, prompt: str, unit: str, expected: float, tolerance_percent: float, budget: int = 400) -> bool:
        """Whether any of the first `budget` candidates is graded right."""
        for index, value in enumerate(self.candidates(prompt, unit)):
            if abs(value - expected) <= tolerance_percent / 100 * abs(expected):
                return True
            if index >= budget:
                return False
        return False


def busbw_factor(op: str, ranks: int) -> float:
    """nccl-tests' factor, as the collectives chapter states it."""
    if op == "all_reduce":
        return 2 * (ranks - 1) / ranks
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (ranks - 1) / ranks
    return 1.0


@dataclass
class KnowingLearner:
    """Answers worked questions with the chapters' formulas and reads look-ups off the lab, through the API."""

    client: TestClient

    @cached_property
    def links(self) -> dict[str, dict[str, Any]]:
        return {link["id"]: link for link in self.client.get("/api/v1/links").json()}

    @cached_property
    def systems(self) -> dict[str, dict[str, Any]]:
        return {system["id"]: system for system in self.client.get("/api/v1/systems").json()}

    def _rate(self, link: str) -> float:
        return float(self.links[link]["per_direction_GBps"]) * 1e9

    def value(self, model: str, parameters: dict[str, Any]) -> float:
        """The answer in base units (s, B/s, B, a fraction, a count)."""
        return float(self._value(model, parameters))

    def _value(self, model: str, p: dict[str, Any]) -> Any:
        if model == "data_in_time":
            return self._rate(p["link"]) * p["time_ms"] / 1e3
        if model == "ring_crossover_size":
            return p["ranks"] * p["alpha_us"] * 1e-6 * self._rate(p["link"])
        if model == "ring_bandwidth_bound_ranks":
            return float(int(p["message_bytes"] / (p["alpha_us"] * 1e-6 * self._rate(p["link"]))))
        if model == "ring_budget_size":
            n = p["ranks"]
            left = p["budget_us"] * 1e-6 - 2 * (n - 1) * p["alpha_us"] * 1e-6
            return left * n * self._rate(p["link"]) / (2 * (n - 1))
        if model == "busbw_from_time":
            return p["message_bytes"] / (p["time_us"] * 1e-6) * busbw_factor(p["op"], p["ranks"])
        if model == "time_from_busbw":
            return p["message_bytes"] * busbw_factor(p["op"], p["ranks"]) / (p["busbw_GBps"] * 1e9)
        if model == "algbw_from_busbw":
            return p["busbw_GBps"] * 1e9 / busbw_factor(p["op"], p["ranks"])
        if model == "nccl_size":
            return float(p["ranks"] * p["shard_bytes"])
        if model == "node_transfer_time":
            system = self.systems[p["system"]]
            return p["message_bytes"] / (self._rate(system["scale_out"]) * 8)
        if model == "nvls_time_saved":
            n = p["gpus_per_node"]
            return (n - 3) / n * p["message_bytes"] / (self.systems[p["system"]]["scale_up_GBps"] * 1e9)
        if model == "training_comm_fraction":
            system = self.systems[p["system"]]
            n = p.get("gpus_per_node") or system["gpus_per_node"] * p["nodes"]
            bandwidth = system["scale_up_GBps"] * 1e9
            if p["nodes"] > 1:  # a flat ring across nodes: B = min(B_up, g · B_out)
                bandwidth = min(bandwidth, system["gpus_per_node"] * system["scale_out_GBps"] * 1e9)
            comm = 2 * (n - 1) / n * 2 * p["parameters"] / bandwidth
            return comm / (comm + p["compute_time_ms"] / 1e3)
        return self._read_the_lab(model, p)

    def _read_the_lab(self, model: str, p: dict[str, Any]) -> Any:
        """A look-up: the value the lab (the same model behind the API) shows for exactly these parameters."""
        if model == "transfer_time":
            return p["message_bytes"] / self._rate(p["link"])
        query = dict(p)
        result = self.client.get("/api/v1/simulate/collective", params=query).json()
        return float(result["time_s"] if model == "collective_time" else result["busbw_GBps"] * 1e9)
