"""The banks as content: the real ones load and agree with the simulator; bad ones fail with file:line."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from pathlib import Path

import pytest
import yaml

from app.content import ContentError, load_course
from app.quiz.bank import (
    Option,
    ParameterRange,
    Question,
    QuestionType,
    Quiz,
    Text,
    draw_parameter,
    format_parameter,
    load_quizzes,
)
from app.quiz.cues import at_least_probability, correct_count_cue, length_cues
from app.quiz.draw import chapter_cap, draw_attempt
from app.quiz.grading import expected_in_unit
from tests.conftest import FIXTURE_COURSE
from tests.unit.quiz.helpers import CONTENT_DIR, real_catalog, real_quiz

CHAPTERS = ("why-interconnects", "nvlink", "nvswitch", "nvl72", "infiniband", "collectives", "future")


def test_the_real_banks_load_with_both_languages() -> None:
    catalog = real_catalog()
    for quiz in catalog:
        for question in quiz.questions:
            assert question.prompt.en != question.prompt.ko
            assert question.explanation.en != question.explanation.ko
    for slug in CHAPTERS:
        practice = catalog.chapter_quiz(slug)
        assert practice is not None, slug
        assert len(practice.questions) >= 10
        assert sum(question.type == "numeric" for question in practice.questions) >= 3
        assert practice.pass_percent == 70
    nvlink = catalog.chapter_quiz("nvlink")
    assert nvlink is not None
    assert set(Counter(question.type for question in nvlink.questions)) == {"single", "multiple", "numeric"}


def test_the_exam_covers_every_chapter_with_wide_numeric_ranges() -> None:
    exam = real_catalog().exam
    assert exam is not None
    assert (exam.draw, exam.pass_percent, exam.attempts_per_day, exam.seconds_between_attempts) == (10, 80, 3, 600)
    assert exam.time_limit_s == 40 * 60
    assert len(exam.questions) >= 60
    per_chapter = Counter(question.chapter for question in exam.questions)
    assert set(per_chapter) == set(CHAPTERS)
    assert min(per_chapter.values()) >= 6
    ranged = [
        question
        for question in exam.questions
        if question.type == "numeric"
        and any(isinstance(values, ParameterRange) and values.variants >= 50 for values in question.parameters.values())
    ]
    assert len(ranged) >= 20
    course = load_course(CONTENT_DIR)
    for question in exam.questions:
        assert question.id.startswith(f"exam-{question.chapter}-")
        assert question.section in course.require(question.chapter).pages["en"].anchors


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


# --- drawing ---------------------------------------------------------------------------------------------------


def test_every_exam_draw_spans_the_chapters_and_keeps_a_quarter_numeric() -> None:
    exam = real_catalog().exam
    assert exam is not None
    assert chapter_cap(exam) == math.ceil(10 / len(CHAPTERS)) == 2
    drawn_ever: set[str] = set()
    for seed in range(400):
        drawn = draw_attempt(exam, seed)
        questions = [exam.question(item.question_id) for item in drawn]
        assert all(question is not None for question in questions)
        chapters = Counter(question.chapter for question in questions if question is not None)
        assert len(drawn) == 10
        assert len({item.question_id for item in drawn}) == 10
        assert sum(question.type == "numeric" for question in questions if question is not None) >= 3
        assert len(chapters) == len(CHAPTERS)
        assert max(chapters.values()) <= 2
        drawn_ever.update(item.question_id for item in drawn)
    # a chapter is picked before a question within it, yet every question still gets its turn
    assert len(drawn_ever) > 0.9 * len(exam.questions)


def _question(chapter: str, number: int, kind: QuestionType) -> Question:
    text = Text(f"{chapter} {number}", f"{chapter} {number} ko")
    options = () if kind == "numeric" else (Option(text, True, None, None), Option(text, False, "scope", None))
    return Question(f"{chapter}-{number}", kind, chapter, "overview", text, options, text)


def _exam(questions: list[Question], draw: int, min_numeric: int) -> Quiz:
    return Quiz("exam", None, Text("Exam", "시험"), 80, tuple(questions), draw, min_numeric)


def test_a_chapter_with_many_questions_gets_no_more_than_its_share() -> None:
    questions = [_question("big", number, "single" if number % 4 else "numeric") for number in range(40)]
    questions += [_question(small, number, "single") for small in ("a", "b") for number in range(4)]
    questions += [_question("c", number, "numeric") for number in range(4)]
    exam = _exam(questions, draw=6, min_numeric=2)
    assert chapter_cap(exam) == 2
    for seed in range(200):
        picked = [exam.question(item.question_id) for item in draw_attempt(exam, seed)]
        chapters = Counter(question.chapter for question in picked if question is not None)
        assert set(chapters) == {"big", "a", "b", "c"}
        assert max(chapters.values()) <= 2
        assert sum(question.type == "numeric" for question in picked if question is not None) >= 2


def test_the_numeric_minimum_wins_over_the_chapter_cap() -> None:
    # Only one chapter has numeric questions: three of them must come from it although the cap is two.
    questions = [_question("numbers", number, "numeric") for number in range(5)]
    questions += [_question(chapter, number, "single") for chapter in ("a", "b", "c") for number in range(5)]
    exam = _exam(questions, draw=8, min_numeric=3)
    for seed in range(100):
        picked = [exam.question(item.question_id) for item in draw_attempt(exam, seed)]
        chapters = Counter(question.chapter for question in picked if question is not None)
        assert chapters["numbers"] >= 3
        assert set(chapters) == {"numbers", "a", "b", "c"}


def test_drawing_is_reproducible_from_the_seed() -> None:
    exam = real_catalog().exam
    assert exam is not None
    assert draw_attempt(exam, 42) == draw_attempt(exam, 42)
    assert draw_attempt(exam, 42) != draw_attempt(exam, 43)


def test_a_chapter_quiz_draws_all_its_questions() -> None:
    nvlink = real_catalog().chapter_quiz("nvlink")
    assert nvlink is not None
    drawn = draw_attempt(nvlink, 5)
    assert sorted(item.question_id for item in drawn) == sorted(question.id for question in nvlink.questions)


def test_a_range_parameter_draws_multiples_of_its_step_across_the_range() -> None:
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


# --- option-length cues ----------------------------------------------------------------------------------------


def test_the_tail_probability_is_exact() -> None:
    assert at_least_probability([0.25] * 10, 0) == 1.0
    for observed in range(11):
        binomial = sum(math.comb(10, k) * 0.25**k * 0.75 ** (10 - k) for k in range(observed, 11))
        assert at_least_probability([0.25] * 10, observed) == pytest.approx(binomial, rel=1e-12)
    chances = [1 / 2, 1 / 3, 1 / 4, 1 / 4, 1 / 5]
    for observed in range(6):
        brute = sum(
            math.prod(chance if hit else 1 - chance for chance, hit in zip(chances, outcome, strict=True))
            for outcome in itertools.product((False, True), repeat=len(chances))
            if sum(outcome) >= observed
        )
        assert at_least_probability(chances, observed) == pytest.approx(brute, rel=1e-12)


def _single(number: int, lengths: list[int], correct: int) -> Question:
    options = tuple(
        Option(Text("x" * length, "가" * length), index == correct, None if index == correct else "scope", None)
        for index, length in enumerate(lengths)
    )
    text = Text(f"q{number}", f"q{number} ko")
    return Question(f"q{number}", "single", "c", "overview", text, options, text)


def test_a_bank_whose_answer_is_usually_the_longest_is_flagged_with_its_count() -> None:
    cued = [_single(number, [30, 10, 12, 11], 0) for number in range(7)]
    fair = [_single(number, [12, 30, 10, 11], 0) for number in range(7, 10)]
    (english, korean) = length_cues(cued + fair)
    assert (english.language, english.extreme, english.observed, english.questions) == ("en", "longest", 7, 10)
    assert korean.language == "ko"
    assert english.probability == pytest.approx(at_least_probability([0.25] * 10, 7))
    assert english.message().startswith("the correct option is the longest in 7 of 10 single-choice questions (en: q0")
    # ties give nothing away: a correct option as long as another is not "the longest"
    assert length_cues([_single(number, [30, 30, 12, 11], 0) for number in range(10)]) == []
    assert length_cues(fair + cued[:2]) == []


def _multiple(number: int, right: int, total: int) -> Question:
    options = tuple(
        Option(Text(f"o{index}", f"o{index} ko"), index < right, None if index < right else "scope", None)
        for index in range(total)
    )
    text = Text(f"m{number}", f"m{number} ko")
    return Question(f"m{number}", "multiple", "c", "overview", text, options, text)


def test_choose_all_questions_that_always_have_some_but_not_all_right_are_flagged() -> None:
    habit = [_multiple(number, right, 5) for number, right in enumerate([2, 3, 2, 4])]
    message = correct_count_cue(habit)
    assert message is not None
    assert message.startswith("every one of the 4 multiple-choice questions (m0, m1, m2, m3) has more than one")
    assert correct_count_cue([*habit, _multiple(4, 1, 5)]) is None
    assert correct_count_cue([*habit, _multiple(4, 5, 5)]) is None
    assert correct_count_cue(habit[:3]) is None  # too few to form a habit


def test_the_exam_has_choose_all_questions_with_one_right_option_and_with_all() -> None:
    exam = real_quiz("exam")
    counts = [
        (sum(option.correct for option in question.options), len(question.options))
        for question in exam.questions
        if question.type == "multiple"
    ]
    assert any(right == 1 for right, _ in counts)
    assert any(right == total for right, total in counts)


def test_a_bank_whose_answer_is_usually_the_shortest_is_flagged_too() -> None:
    (english, _korean) = length_cues([_single(number, [5, 30, 12, 11], 0) for number in range(8)])
    assert (english.extreme, english.observed) == ("shortest", 8)


# --- bad content is reported with file and line -----------------------------------------------------------------


@pytest.fixture
def content(fixture_course: Path) -> Path:
    return fixture_course


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


def question_blocks(path: Path) -> tuple[str, list[str]]:
    """A bank's text before its first question, and each question's block of text."""
    head, *blocks = path.read_text("utf-8").split("\n  - id: ")
    return head, ["  - id: " + block.rstrip("\n") + "\n" for block in blocks]


def test_the_fixture_course_is_valid() -> None:
    catalog = load_quizzes(FIXTURE_COURSE, load_course(FIXTURE_COURSE))
    assert [quiz.id for quiz in catalog] == ["nvlink", "nvswitch", "exam"]


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
    edit(quiz, "    section: latency\n", "    section: no-such-section\n")
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
    exam = content / "exam.yaml"
    count = len(question_blocks(exam)[1])
    draw = count // 2 + 1
    edit(exam, "draw: 10", f"draw: {draw}")
    assert problems(content) == [
        f"exam.yaml:{line_of(exam, f'draw: {draw}')}: the exam draws {draw} "
        f"questions, so the bank needs at least {2 * draw} (it has {count})"
    ]


def test_a_unit_must_measure_what_the_model_computes(content: Path) -> None:
    quiz = content / "guides/nvlink/quiz.yaml"
    text = quiz.read_text("utf-8")
    before = "    unit: ms\n    tolerance_percent: 1\n    parameters:\n      message_bytes: [536870912"
    assert before in text
    quiz.write_text(text.replace(before, before.replace("unit: ms", "unit: GB/s")), "utf-8")
    found = problems(content)
    assert len(found) == 1
    assert "'transfer_time' computes a time; 'GB/s' does not measure it" in found[0]


def test_a_range_is_validated_at_its_ends_and_middle(content: Path) -> None:
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


def test_a_chapter_quiz_needs_ten_questions(content: Path) -> None:
    quiz = content / "guides/nvlink/quiz.yaml"
    head, blocks = question_blocks(quiz)
    numeric = [block for block in blocks if "    type: numeric\n" in block]
    others = [block for block in blocks if block not in numeric]
    quiz.write_text(head + "\n" + "\n".join(numeric + others[: 9 - len(numeric)]), "utf-8")
    assert problems(content) == [
        f"guides/nvlink/quiz.yaml:{line_of(quiz, '  - id: ')}: a chapter quiz needs at least 10 questions (it has 9)"
    ]


def test_a_chapter_quiz_needs_three_numeric_questions(content: Path) -> None:
    quiz = content / "guides/nvlink/quiz.yaml"
    head, blocks = question_blocks(quiz)
    numeric = [block for block in blocks if "    type: numeric\n" in block]
    kept = [block for block in blocks if block not in numeric[2:]]
    assert len(kept) >= 10
    quiz.write_text(head + "\n" + "\n".join(kept), "utf-8")
    assert problems(content) == [
        f"guides/nvlink/quiz.yaml:{line_of(quiz, '  - id: ')}: a chapter quiz needs at least 3 numeric questions "
        "(it has 2)"
    ]


def test_a_bank_that_gives_its_answers_away_by_length_is_reported(content: Path) -> None:
    quiz = content / "guides/nvswitch/quiz.yaml"
    bank = yaml.safe_load(quiz.read_text("utf-8"))
    singles = [question for question in bank["questions"] if question["type"] == "single"]
    for question in singles:
        for option in question["options"]:
            if option.get("correct"):
                option["text"]["en"] += " (this is the one, with every qualification spelled out in full)"
    quiz.write_text(yaml.safe_dump(bank, allow_unicode=True, sort_keys=False), "utf-8")
    (found,) = problems(content)
    assert found.startswith(
        f"guides/nvswitch/quiz.yaml:{line_of(quiz, '- id: ')}: the correct option is the longest in "
        f"{len(singles)} of {len(singles)} single-choice questions (en: {singles[0]['id']}"
    )
    assert "below 1%" in found


def test_an_exam_question_may_not_repeat_a_practice_question(content: Path) -> None:
    _head, blocks = question_blocks(content / "guides/nvlink/quiz.yaml")
    copied = next(block for block in blocks if block.startswith("  - id: h100-one-direction\n"))
    copied = copied.replace("  - id: h100-one-direction\n", "  - id: exam-nvlink-copied\n    chapter: nvlink\n")
    exam = content / "exam.yaml"
    exam.write_text(exam.read_text("utf-8").rstrip("\n") + "\n\n" + copied, "utf-8")
    line = line_of(exam, "id: exam-nvlink-copied") + 5  # the prompt
    assert problems(content) == [
        f"exam.yaml:{line}: exam question 'exam-nvlink-copied' repeats practice question "
        "'nvlink/h100-one-direction': the same prompt (en)"
    ]


def test_an_exam_calculation_must_draw_values_practice_never_shows(content: Path) -> None:
    _head, blocks = question_blocks(content / "guides/nvlink/quiz.yaml")
    practice = next(block for block in blocks if block.startswith("  - id: point-to-point-transfer\n"))
    reworded = practice.replace(
        "  - id: point-to-point-transfer\n", "  - id: exam-nvlink-narrow\n    chapter: nvlink\n"
    )
    reworded = reworded.replace("One GPU sends", "A GPU pushes").replace("GPU 하나가", "한 GPU가")
    narrowed = reworded.replace("message_bytes: [536870912, 1073741824, 2147483648]", "message_bytes: [1073741824]")
    exam = content / "exam.yaml"
    original = exam.read_text("utf-8").rstrip("\n") + "\n\n"
    exam.write_text(original + narrowed, "utf-8")
    start = line_of(exam, "id: exam-nvlink-narrow")
    assert problems(content) == [
        f"exam.yaml:{start + 10}: an exam question needs at least 50 different prompts; its parameters draw 3",
        f"exam.yaml:{start + 5}: exam question 'exam-nvlink-narrow' repeats practice question "
        "'nvlink/point-to-point-transfer': the same transfer_time calculation, with no value the other cannot draw",
    ]
    widened = reworded.replace(
        "message_bytes: [536870912, 1073741824, 2147483648]",
        "message_bytes: {min: 33554432, max: 4294967296, step: 33554432}",
    )
    exam.write_text(original + widened, "utf-8")
    load_quizzes(content, load_course(content))


def test_the_exam_keeps_two_thirds_of_its_numeric_questions_worked(content: Path) -> None:
    exam = content / "exam.yaml"
    exam.write_text(exam.read_text("utf-8").replace("    compute: {model:", "    lookup: true\n    compute: {model:"))
    found = problems(content)
    assert any("the bank needs at least 8 (it has 0)" in problem for problem in found), found
    assert any("at least two thirds of the numeric questions must be worked" in problem for problem in found), found


def test_an_exam_question_on_the_calibrated_model_needs_the_models_error_as_tolerance(content: Path) -> None:
    exam = content / "exam.yaml"
    text = exam.read_text("utf-8")
    _head, blocks = question_blocks(exam)
    block = next(block for block in blocks if block.startswith("  - id: exam-nvswitch-nvls-time\n"))
    calibrated = block.replace("      mode: ideal\n", "      mode: calibrated\n").replace(
        "    lookup: true\n", "    lookup: true\n    tolerance_percent: 5\n"
    )
    assert calibrated != block
    exam.write_text(text.replace(block, calibrated), "utf-8")
    found = problems(content)
    assert len(found) == 1, found
    assert "a question on the calibrated model needs a tolerance of at least 10.0 %" in found[0]


def test_the_draw_always_holds_enough_worked_questions_that_the_rest_cannot_pass() -> None:
    exam = real_catalog().exam
    assert exam is not None
    assert exam.min_worked == 4
    # Everything else right and one worked question right by luck: still below the pass mark ...
    assert (exam.draw - exam.min_worked + 1) * 100 < exam.pass_percent * exam.draw
    assert (exam.draw - exam.min_worked + 2) * 100 >= exam.pass_percent * exam.draw  # ... and no more than that
    for seed in range(300):
        drawn = [exam.question(item.question_id) for item in draw_attempt(exam, seed)]
        assert sum(question is not None and question.worked for question in drawn) >= exam.min_worked
    for question in exam.questions:
        if question.type == "numeric":
            assert question.prompt_variants >= 50, question.id


def test_a_generic_server_is_named_in_the_prompts_language() -> None:
    assert format_parameter("system", "pcie-gen5-8gpu", "en") == "8-GPU PCIe 5.0 server (illustrative)"
    assert format_parameter("system", "pcie-gen5-8gpu", "ko") == "GPU 8개 PCIe 5.0 서버(예시)"
    assert format_parameter("system", "pcie-gen4-8gpu", "ko") == "GPU 8개 PCIe 4.0 서버(예시)"
    assert format_parameter("system", "dgx-h100", "ko") == "DGX H100"  # a product keeps its name
