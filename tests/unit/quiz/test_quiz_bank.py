"""The banks as content: the real ones load and agree with the simulator; bad ones fail with file:line."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from app.content import ContentError, load_course
from app.quiz.bank import load_quizzes
from app.quiz.draw import draw_attempt
from app.quiz.grading import expected_in_unit
from tests.unit.quiz.helpers import CONTENT_DIR, real_catalog


def test_the_real_banks_load_with_both_languages() -> None:
    catalog = real_catalog()
    nvlink = catalog.chapter_quiz("nvlink")
    exam = catalog.exam
    assert nvlink is not None
    assert exam is not None
    assert len(nvlink.questions) >= 8
    assert len(exam.questions) >= 2 * exam.draw
    assert exam.draw == 10
    assert exam.pass_percent == 80
    assert exam.attempts_per_day == 3
    assert exam.seconds_between_attempts == 600
    kinds = Counter(question.type for question in nvlink.questions)
    assert set(kinds) == {"single", "multiple", "numeric"}
    for quiz in catalog:
        for question in quiz.questions:
            assert question.prompt.en != question.prompt.ko
            assert question.explanation.en != question.explanation.ko


def test_numeric_answers_come_from_the_simulator_presets() -> None:
    nvlink = real_catalog().chapter_quiz("nvlink")
    assert nvlink is not None
    per_gpu = nvlink.question("per-gpu-bandwidth")
    assert per_gpu is not None
    assert expected_in_unit(per_gpu, {"link": "nvlink4", "field": "per_direction"}) == pytest.approx(450)
    transfer = nvlink.question("point-to-point-transfer")
    assert transfer is not None
    # The chapter's worked example: 1 GiB over NVLink 4 takes 2.386 ms.
    assert expected_in_unit(transfer, {"message_bytes": 2**30, "link": "nvlink4"}) == pytest.approx(2.386, abs=1e-3)


def test_every_exam_draw_has_a_quarter_numeric() -> None:
    exam = real_catalog().exam
    assert exam is not None
    for seed in range(200):
        drawn = draw_attempt(exam, seed)
        types = [exam.question(item.question_id).type for item in drawn]  # type: ignore[union-attr]
        assert len(drawn) == 10
        assert len({item.question_id for item in drawn}) == 10
        assert types.count("numeric") >= 3


def test_drawing_is_reproducible_from_the_seed() -> None:
    exam = real_catalog().exam
    assert exam is not None
    assert draw_attempt(exam, 42) == draw_attempt(exam, 42)
    assert draw_attempt(exam, 42) != draw_attempt(exam, 43)


@pytest.fixture
def content(tmp_path: Path) -> Path:
    copy = tmp_path / "content"
    shutil.copytree(CONTENT_DIR, copy)
    return copy


def problems(content: Path) -> list[str]:
    with pytest.raises(ContentError) as raised:
        load_quizzes(content, load_course(content))
    return [problem.format(content) for problem in raised.value.problems]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")


def line_of(path: Path, needle: str) -> int:
    return next(number for number, line in enumerate(path.read_text("utf-8").splitlines(), 1) if needle in line)


def test_two_correct_options_in_a_single_question(content: Path) -> None:
    quiz = content / "guides/nvlink/quiz.yaml"
    edit(
        quiz,
        '      - text: {en: "900 GB/s", ko: "900 GB/s"}\n',
        '      - text: {en: "900 GB/s", ko: "900 GB/s"}\n        correct: true\n',
    )
    found = problems(content)
    assert len(found) == 1
    assert found[0].startswith("guides/nvlink/quiz.yaml:")
    assert "exactly one correct option (found 2)" in found[0]


def test_a_missing_translation_names_the_line(content: Path) -> None:
    quiz = content / "guides/nvlink/quiz.yaml"
    edit(quiz, '      - text: {en: "112.5 GB/s", ko: "112.5 GB/s"}', '      - text: {en: "112.5 GB/s"}')
    line = line_of(quiz, '{en: "112.5 GB/s"}')
    assert problems(content) == [f"guides/nvlink/quiz.yaml:{line}: questions.0.options.2.text.ko: Field required"]


def test_an_unknown_section_is_reported(content: Path) -> None:
    quiz = content / "guides/nvlink/quiz.yaml"
    edit(quiz, "section: strategic-impact", "section: no-such-section")
    line = line_of(quiz, "section: no-such-section")
    found = problems(content)
    assert len(found) == 1
    assert found[0].startswith(f"guides/nvlink/quiz.yaml:{line}: section 'no-such-section' is not in")


def test_parameters_the_simulator_refuses_are_reported(content: Path) -> None:
    quiz = content / "guides/nvlink/quiz.yaml"
    edit(quiz, "link: [nvlink3, nvlink4, nvlink5]", "link: [nvlink3, nvlink9]")
    found = problems(content)
    assert len(found) == 1
    assert "unknown link 'nvlink9'" in found[0]


def test_a_placeholder_must_be_a_parameter_in_both_languages(content: Path) -> None:
    quiz = content / "guides/nvlink/quiz.yaml"
    edit(quiz, "over {link}, in one direction", "over {lnk}, in one direction")
    found = problems(content)
    assert any("prompt.en uses {lnk}" in problem for problem in found)
    assert any("prompt.en and prompt.ko use different placeholders" in problem for problem in found)


def test_an_exam_needs_twice_the_questions_it_draws(content: Path) -> None:
    edit(content / "exam.yaml", "draw: 10", "draw: 13")
    assert problems(content) == [
        f"exam.yaml:{line_of(content / 'exam.yaml', 'draw: 13')}: the exam draws 13 "
        "questions, so the bank needs at least 26 (it has 24)"
    ]


def test_a_unit_must_measure_what_the_model_computes(content: Path) -> None:
    quiz = content / "guides/nvlink/quiz.yaml"
    text = quiz.read_text("utf-8")
    before = "    unit: ms\n    tolerance_percent: 1\n    parameters:\n      message_bytes: [536870912"
    quiz.write_text(text.replace(before, before.replace("unit: ms", "unit: GB/s")), "utf-8")
    found = problems(content)
    assert len(found) == 1
    assert "'transfer_time' computes a time; 'GB/s' does not measure it" in found[0]


def test_a_range_parameter_draws_multiples_of_its_step_across_the_range() -> None:
    import random

    from app.quiz.bank import ParameterRange, draw_parameter

    sizes = ParameterRange(64 * 2**20, 16 * 2**30, 64 * 2**20)
    assert sizes.variants == 256
    assert sizes.probes() == (64 * 2**20, 1024 * 2**20, 16 * 2**30)
    rng = random.Random(7)
    drawn = [int(draw_parameter(sizes, rng)) for _ in range(2000)]
    assert all(isinstance(value, int) and value % (64 * 2**20) == 0 for value in drawn)
    assert min(drawn) < 2 * 64 * 2**20
    assert max(drawn) > 15 * 2**30
    # uniform over the 256 multiples: no value is common, so a harvested one rarely recurs
    assert max(Counter(drawn).values()) < 25
    assert len(set(drawn)) > 240


def test_a_range_is_validated_at_its_ends_and_middle(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(CONTENT_DIR, content)
    quiz_path = content / "guides" / "nvlink" / "quiz.yaml"
    text = quiz_path.read_text("utf-8")
    needle = "message_bytes: ["
    assert needle in text
    start = text.index(needle)
    end = text.index("]", start) + 1
    quiz_path.write_text(text[:start] + "message_bytes: {min: 1, max: 4398046511104, step: 1}" + text[end:], "utf-8")
    with pytest.raises(ContentError) as raised:
        load_quizzes(content, load_course(content))
    assert "quiz.yaml" in str(raised.value)
    assert "the simulator refuses" in str(raised.value)
    quiz_path.write_text(text[:start] + "message_bytes: {min: 100, max: 10, step: 1}" + text[end:], "utf-8")
    with pytest.raises(ContentError, match="max must not be below min"):
        load_quizzes(content, load_course(content))
