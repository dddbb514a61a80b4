"""Corrections a review found in the course's own text, held by rules over the real content so they cannot
return: one scenario gets one number, activation volumes are elements, PCIe 6.0's "after encoding" says which
layer it counts, the exam quotes what the simulator computes, and NCCL's tree counts its chain inside a node."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.config import PROJECT_ROOT
from app.content.figures import CALCULATION, calculate
from app.formatting import significant

CONTENT = PROJECT_ROOT / "content"
GUIDES = CONTENT / "guides"


def chapter_texts() -> dict[Path, str]:
    return {path: path.read_text("utf-8") for path in sorted(GUIDES.glob("*/*.md"))}


def bank(path: Path) -> list[dict[str, Any]]:
    questions: list[dict[str, Any]] = yaml.safe_load(path.read_text("utf-8"))["questions"]
    return questions


def all_questions() -> list[dict[str, Any]]:
    return [q for path in [*sorted(GUIDES.glob("*/quiz.yaml")), CONTENT / "exam.yaml"] for q in bank(path)]


def strings(node: object, language: str) -> list[str]:
    """Every text of one language in a question, however deeply it is nested."""
    if isinstance(node, dict):
        found = [node[language]] if isinstance(node.get(language), str) else []
        return found + [text for value in node.values() for text in strings(value, language)]
    if isinstance(node, list):
        return [text for value in node for text in strings(value, language)]
    return []


def parameters(text: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in text.split(","))


def test_a_training_step_scenario_names_one_algorithm_wherever_it_appears() -> None:
    """why-interconnects and nvlink once showed 67 ms and 51 ms for the same 7B job: one forced a ring unsaid."""
    algorithms: dict[tuple[str, frozenset[tuple[str, str]]], set[str]] = {}
    for path, text in chapter_texts().items():
        for match in CALCULATION.finditer(text):
            given = parameters(match["parameters"])
            if match["model"].startswith("training_"):
                assert "algorithm" in given, f"{path}: a training step must name its algorithm"
                scenario = frozenset((name, value) for name, value in given.items() if name != "algorithm")
                algorithms.setdefault((match["model"], scenario), set()).add(given["algorithm"])
    seven_b = [key for key in algorithms if ("parameters", "7000000000") in key[1]]
    assert {dict(scenario)["system"] for _, scenario in seven_b} >= {"dgx-h100", "pcie-gen5-8gpu"}
    assert all(len(names) == 1 for names in algorithms.values()), algorithms


def test_the_exam_quotes_the_seven_billion_parameter_step_the_simulator_computes() -> None:
    question = next(q for q in bank(CONTENT / "exam.yaml") if q["id"] == "exam-nvlink-cost-per-step")
    explanation = question["explanation"]["en"]
    for system in ("dgx-h100", "pcie-gen5-8gpu"):
        given = f"parameters=7000000000,system={system},nodes=1,compute_time_ms=1000,algorithm=auto,mode=calibrated"
        time_ms = calculate("training_allreduce_time", "ms", given)
        share = calculate("training_comm_fraction", "%", given)
        quoted = {f"about {significant(time_ms, digits=2)} ms", f"about {round(time_ms)} ms"}
        assert any(figure in explanation for figure in quoted), (system, quoted)
        assert f"{round(share)} %" in explanation


def test_megatron_volumes_are_counted_in_elements_wherever_they_are_quoted() -> None:
    volume = re.compile(r"\b8?bsh\b")
    texts = [*chapter_texts().items()]
    texts += [(Path(q["id"]), text) for q in all_questions() for text in strings(q, "en") + strings(q, "ko")]
    quoted = [(where, line) for where, text in texts for line in text.splitlines() if volume.search(line)]
    assert quoted, "the course quotes Narayanan et al.'s volumes somewhere"
    for where, line in quoted:
        assert "element" in line or "원소" in line, f"{where}: {line[:120]}"


def test_pcie6_after_encoding_says_which_layer_it_counts() -> None:
    """121 GB/s is the FLIT payload; the transaction layer gets about 118 GB/s. A 1 % question must say which."""
    asked = [
        q
        for q in all_questions()
        if "pcie6" in str(q.get("parameters", {}).get("link", "")) and "after encoding" in q["prompt"]["en"]
    ]
    assert asked
    for question in asked:
        assert "FLIT" in question["prompt"]["en"], question["id"]
        assert "FLIT" in question["prompt"]["ko"], question["id"]


@pytest.mark.parametrize(("nodes", "gpus_per_node"), [(16, 8)])
def test_the_exam_counts_nccls_tree_with_its_chain_inside_each_node(nodes: int, gpus_per_node: int) -> None:
    question = next(q for q in bank(CONTENT / "exam.yaml") if q["id"] == "exam-collectives-tree-steps")
    ring = 2 * (nodes * gpus_per_node - 1)
    tree = 2 * ((gpus_per_node - 1) + int(math.log2(nodes)))
    (correct,) = [option for option in question["options"] if option.get("correct")]
    assert correct["text"]["en"] == f"Ring {ring}, tree {tree}"
