"""Claims in the chapters that a review found wrong once, held against the simulator or the sources' wording, so
that the mistake cannot come back unnoticed. Each test reads the real content (both languages where the claim
is prose) and fails if the corrected statement is reverted."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from app.simulator.models import compute
from tests.conftest import PROJECT_ROOT

CONTENT = PROJECT_ROOT / "content"


def _chapter(slug: str, language: str) -> str:
    return (CONTENT / "guides" / slug / f"{language}.md").read_text(encoding="utf-8")


def _texts(node: object) -> list[str]:
    """Every string in a YAML tree (prompts, options, feedback and explanations in both languages)."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [text for value in node.values() for text in _texts(value)]
    if isinstance(node, list):
        return [text for value in node for text in _texts(value)]
    return []


def _bank(path: Path) -> list[dict[str, object]]:
    questions = yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]
    assert isinstance(questions, list)
    return questions


def _options(question: dict[str, object]) -> list[dict[str, object]]:
    options = question["options"]
    assert isinstance(options, list)
    return options


def _sentences(text: str) -> list[str]:
    return [part for part in re.split(r"(?<=[.!?])\s+|\n", text) if part.strip()]


def test_a_flat_ring_across_dgx_nodes_has_no_winner_inside_the_models_error() -> None:
    """The future chapter once taught that 'the limit flips to NVLink' on a 2 % margin; the calibrated model
    cannot resolve that margin, so the chapter must teach 'measure', and the margin must stay below the error."""
    times = {
        system: compute(
            "collective_time",
            {
                "op": "all_reduce",
                "message_bytes": 2**30,
                "system": system,
                "nodes": 16,
                "algorithm": "ring",
                "mode": "calibrated",
            },
        )
        for system in ("dgx-h100", "dgx-b200")
    }
    h100, b200 = times["dgx-h100"], times["dgx-b200"]
    margin_percent = abs(h100.value - b200.value) / h100.value * 100
    assert margin_percent < min(h100.error_percent, b200.error_percent)
    future = [_chapter("future", "en"), _chapter("future", "ko")]
    future += _texts(_bank(CONTENT / "guides" / "future" / "quiz.yaml"))
    future += _texts([q for q in _bank(CONTENT / "exam.yaml") if q.get("chapter") == "future"])
    for text in future:
        assert "flips to NVLink" not in text
        assert "NVLink로 넘어갑니다" not in text


def test_the_eight_33_kw_power_shelves_are_named_as_gb200s() -> None:
    """NVIDIA's eight 33 kW shelves are the GB200 reference rack (Mission Control manual); 142 kW is GB300's."""
    prose = [_chapter("nvl72", "en"), _chapter("nvl72", "ko")]
    sentences = [sentence for text in prose for sentence in _sentences(text) if "33 kW" in sentence]
    assert sentences, "the power shelves are no longer mentioned: drop this test with them"
    for sentence in sentences:
        assert "GB200" in sentence, sentence
    questions = _bank(CONTENT / "guides" / "nvl72" / "quiz.yaml")
    questions += [question for question in _bank(CONTENT / "exam.yaml") if question.get("chapter") == "nvl72"]
    for question in questions:  # a question names the rack once, in its prompt; its options may not repeat it
        texts = _texts(question)
        if any("33 kW" in text for text in texts):
            assert any("GB200" in text for text in texts), question["id"]


def test_the_decode_example_counts_two_all_reduces_per_layer() -> None:
    assert "two of them per layer" in _chapter("nvl72", "en")
    assert "레이어마다 이것을 두 번" in _chapter("nvl72", "ko")


def test_a_work_request_is_posted_by_a_doorbell_write() -> None:
    english, korean = _chapter("infiniband", "en"), _chapter("infiniband", "ko")
    assert "write to NIC memory" not in english
    assert "doorbell" in english
    assert "NIC 메모리에 쓰기" not in korean
    assert "도어벨" in korean


def test_choose_all_questions_do_not_always_have_two_or_three_right_options() -> None:
    """A learner who always ticks two or three options should not be rewarded by the bank's habits."""
    banks = [CONTENT / "exam.yaml", *sorted((CONTENT / "guides").glob("*/quiz.yaml"))]
    choose_all = [question for path in banks for question in _bank(path) if question["type"] == "multiple"]
    options = [_options(question) for question in choose_all]
    right = [sum(1 for option in listed if option.get("correct")) for listed in options]
    assert 1 in right
    assert any(count == len(listed) for count, listed in zip(right, options, strict=True))


def test_the_new_sections_hand_arithmetic_adds_up() -> None:
    """Hand-worked figures of the MoE, inference and other-fabrics sections, in both languages."""
    dispatch_bytes = 4_096 * 7_168 * 8 * 2  # tokens x hidden x top-k x bf16 bytes
    assert dispatch_bytes == 469_762_048 == 448 * 2**20
    kv_bytes = 163_840 * 8_192  # bytes per token of the chapter's illustrative model x prompt tokens
    assert kv_bytes == 1_280 * 2**20
    for language in ("en", "ko"):
        nvl72 = _chapter("nvl72", language)
        assert "469,762,048" in nvl72
        assert "448 MiB" in nvl72
        assert "1,280 MiB" in nvl72
        assert "7 × 64 = 448 GB/s" in _chapter("future", language)
