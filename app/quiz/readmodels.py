"""What the quiz service hands to the web layer: an attempt as its learner may see it, built from the stored rows
and the bank.

Correctness, feedback and explanations exist only on `AnswerView`, which exists only for a locked answer (and,
on a closed attempt, for the review). The final exam says nothing of a single answer (`reveal` is False): no
verdict, no misconception name, no right option, value or explanation, until the attempt is over and the
learner has passed the exam. A closed attempt gives its score and the sections to re-read, grouped by chapter.
Every per-answer signal is something throw-away attempts could harvest: a verdict teaches the choice key, and a
named slip ("both directions", "bits versus bytes") tells a script by what factor its number was off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.formatting import significant
from app.quiz.bank import MISCONCEPTIONS, Option, Question, Quiz, Text, render_text
from app.quiz.grading import Grade, expected_in_unit
from app.quiz.models import OPEN_STATES, QuizAnswer, QuizAttempt, aware
from app.quiz.units import written
from app.remembered import Remembered
from app.simulator.models import ParameterValue


@dataclass(frozen=True, slots=True)
class ShownOption:
    token: str
    index: int  # in the bank question
    option: Option

    def text(self, language: str) -> str:
        return self.option.text.get(language)


@dataclass(frozen=True, slots=True)
class DrawnView:
    """A question as drawn for one attempt: no correctness in here."""

    number: int
    question: Question
    parameters: Mapping[str, ParameterValue]
    options: tuple[ShownOption, ...]

    @property
    def id(self) -> str:
        return self.question.id

    @property
    def type(self) -> str:
        return self.question.type

    @property
    def unit(self) -> str | None:
        return written(self.question.unit) if self.question.unit is not None else None

    def prompt(self, language: str) -> str:
        return render_text(self.question.prompt.get(language), self.parameters, language)

    def hint_example(self, language: str) -> str | None:
        """A sample quantity in the question's unit that can never be its answer (see Question.hint_value)."""
        if self.question.hint_value is None:
            return None
        return f"{significant(self.question.hint_value, language)} {self.unit}"

    def token_to_index(self) -> dict[str, int]:
        return {shown.token: shown.index for shown in self.options}


@dataclass(frozen=True, slots=True)
class Feedback:
    """One piece of feedback: an option's own text (with its misconception), or a numeric diagnosis code."""

    text: Text | None = None
    misconception: str | None = None
    diagnosis: str | None = None
    ratio: float | None = None


@dataclass(frozen=True, slots=True)
class AnswerView:
    question_id: str
    drawn: DrawnView
    grade: Grade
    chosen: tuple[int, ...]  # bank indexes (choice questions)
    text: str | None  # the quantity as typed (numeric)
    answered: bool  # False for an unanswered question shown in the review
    reveal: bool = True  # whether the right answer and the explanation may be shown

    @property
    def correct(self) -> bool:
        """The grade itself, for scoring and for pages that may show it; `verdict` is what may leave the server."""
        return self.grade.correct

    @property
    def verdict(self) -> bool | None:
        return self.grade.correct if self.reveal else None

    @property
    def chosen_tokens(self) -> tuple[str, ...]:
        return tuple(shown.token for shown in self.drawn.options if shown.index in self.chosen)

    def marks_right(self, shown: ShownOption) -> bool:
        """Whether the option may be marked as a right answer here."""
        return self.reveal and shown.option.correct

    @property
    def correct_tokens(self) -> tuple[str, ...] | None:
        if self.drawn.type == "numeric" or not self.reveal:
            return None
        return tuple(shown.token for shown in self.drawn.options if shown.option.correct)

    @property
    def correct_value(self) -> float | None:
        if self.drawn.type != "numeric" or not self.reveal:
            return None
        return expected_in_unit(self.drawn.question, self.drawn.parameters)

    def explanation(self, language: str) -> str | None:
        if not self.reveal:
            return None
        answer = ""
        if self.correct_value is not None:
            answer = f"{significant(self.correct_value, language)} {self.drawn.unit}"
        return render_text(
            self.drawn.question.explanation.get(language), self.drawn.parameters, language, answer=answer
        )

    @property
    def feedback(self) -> tuple[Feedback, ...]:
        """What the answer shows: each chosen option's own feedback or the numeric slip with its ratio; nothing
        where the answer may not be judged yet (see `reveal`)."""
        if not self.reveal:
            return ()
        if self.drawn.type == "numeric":
            if self.grade.correct or not self.answered:
                return ()
            return (Feedback(diagnosis=self.grade.diagnosis, ratio=self.grade.ratio),)
        items = []
        for shown in self.drawn.options:
            if shown.index not in self.chosen:
                continue
            if shown.option.feedback is not None:
                items.append(Feedback(text=shown.option.feedback, misconception=shown.option.misconception))
            elif shown.option.misconception is not None:
                items.append(Feedback(misconception=shown.option.misconception))
        return tuple(items)

    @property
    def misconceptions(self) -> tuple[str, ...]:
        """The misconceptions this answer shows, once each: the chosen options' (an option names its own), or
        the slips a numeric diagnosis names ("arithmetic" and "sign" are mistakes, not misconceptions). None
        where the answer may not be judged yet: a slip's name tells by what factor a number was off."""
        if not self.reveal or not self.answered or self.correct:
            return ()
        if self.drawn.type == "numeric":
            codes: list[str | None] = list((self.grade.diagnosis or "").split("+"))
        else:
            codes = [shown.option.misconception for shown in self.drawn.options if shown.index in self.chosen]
        return tuple(dict.fromkeys(code for code in codes if code in MISCONCEPTIONS))

    @property
    def partly_right(self) -> bool:
        """A multiple-choice answer that picked some of the right options, but not exactly them."""
        if self.drawn.type != "multiple" or not self.answered or self.correct:
            return False
        return any(shown.option.correct for shown in self.drawn.options if shown.index in self.chosen)

    def option_verdicts(self) -> tuple[OptionVerdict, ...]:
        """Each option, whether it is right and whether it was chosen; only where the right answers may show."""
        assert self.reveal, "the exam keeps its right options until it is passed"
        return tuple(OptionVerdict(shown, shown.index in self.chosen) for shown in self.drawn.options)


@dataclass(frozen=True, slots=True)
class OptionVerdict:
    shown: ShownOption
    chosen: bool

    @property
    def right(self) -> bool:
        return self.shown.option.correct

    @property
    def verdict(self) -> str:
        """One of "chosen-right", "chosen-wrong", "missed" (a right option left out), "avoided" (a wrong one)."""
        if self.chosen:
            return "chosen-right" if self.right else "chosen-wrong"
        return "missed" if self.right else "avoided"


@dataclass(frozen=True, slots=True)
class MisconceptionShown:
    """A misconception that answers of an attempt showed: in how many, and the sections that take it apart."""

    code: str
    answers: int
    sections: tuple[tuple[str, str], ...]  # (chapter, section) of those questions, in question order, once each


@dataclass(frozen=True, slots=True)
class ChapterToReview:
    chapter: str
    sections: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AttemptView:
    id: str
    quiz: Quiz
    state: str
    started_at: datetime
    deadline_at: datetime | None
    finished_at: datetime | None
    questions: tuple[DrawnView, ...]
    answers: Mapping[str, AnswerView]
    correct_count: int | None
    score_percent: int | None
    passed: bool | None
    reveal: bool = True

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES

    @property
    def answered_count(self) -> int:
        return len(self.answers)

    def question(self, question_id: str) -> DrawnView | None:
        for drawn in self.questions:
            if drawn.id == question_id:
                return drawn
        return None

    def review(self) -> tuple[AnswerView, ...]:
        """Every question with its answer; unanswered ones as wrong with nothing chosen. Closed attempts only."""
        assert not self.is_open
        return tuple(
            self.answers.get(drawn.id)
            or AnswerView(drawn.id, drawn, Grade(False), (), None, answered=False, reveal=self.reveal)
            for drawn in self.questions
        )

    def misconceptions_shown(self) -> tuple[MisconceptionShown, ...]:
        """The misconceptions the answers showed, the most frequent first (ties in question order)."""
        answers: dict[str, int] = {}
        sections: dict[str, dict[tuple[str, str], None]] = {}
        for answer in self.review():
            question = answer.drawn.question
            for code in answer.misconceptions:
                answers[code] = answers.get(code, 0) + 1
                sections.setdefault(code, {})[(question.chapter, question.section)] = None
        ranked = sorted(answers, key=lambda code: -answers[code])  # sorted() is stable: ties keep their order
        return tuple(MisconceptionShown(code, answers[code], tuple(sections[code])) for code in ranked)

    def partly_right(self) -> tuple[AnswerView, ...]:
        """The partly right multiple-choice answers, where their options may be told apart (see `reveal`)."""
        if not self.reveal:
            return ()
        return tuple(answer for answer in self.review() if answer.partly_right)

    def sections_to_review(self) -> tuple[ChapterToReview, ...]:
        """The sections of every question answered wrong or not at all, grouped by chapter (chapters in the order
        their first such question came, sections in alphabetical order of their ids, once each), never per
        question: on the exam this is all a closed attempt says before the learner has passed."""
        grouped: dict[str, set[str]] = {}
        for answer in self.review():
            if not answer.correct:
                grouped.setdefault(answer.drawn.question.chapter, set()).add(answer.drawn.question.section)
        return tuple(ChapterToReview(chapter, tuple(sorted(sections))) for chapter, sections in grouped.items())


def drawn_questions(stored: list[dict[str, Any]], quiz: Quiz) -> tuple[DrawnView, ...]:
    """The questions as drawn, from what quiz_attempts.questions holds."""
    views: list[DrawnView] = []
    for item in stored:
        question = quiz.question(str(item["id"]))
        if question is None:  # the bank dropped the question since: it cannot be shown or graded
            continue
        options = tuple(
            ShownOption(token=str(token), index=int(index), option=question.options[int(index)])
            for index, token in item["options"]
            if 0 <= int(index) < len(question.options)
        )
        views.append(DrawnView(len(views) + 1, question, dict(item["params"]), options))
    return tuple(views)


DRAWN_REMEMBERED = 1024
_DRAWN: Remembered[tuple[str, Quiz], tuple[DrawnView, ...]] = Remembered(DRAWN_REMEMBERED)


def drawn_for(attempt: QuizAttempt, quiz: Quiz) -> tuple[DrawnView, ...]:
    """drawn_questions, remembered per attempt: a draw never changes once stored, and every answer and page of an
    attempt needs it (the quiz is compared by identity: a reloaded bank is a new key)."""
    return _DRAWN.remember((attempt.id, quiz), lambda: drawn_questions(attempt.questions, quiz))


def answer_view(drawn: DrawnView, row: QuizAnswer, reveal: bool) -> AnswerView:
    grade = Grade(correct=row.correct, diagnosis=row.diagnosis, ratio=row.ratio)
    return AnswerView(row.question_id, drawn, grade, tuple(row.chosen or ()), row.text, answered=True, reveal=reveal)


def attempt_view(
    attempt: QuizAttempt, quiz: Quiz, answers: list[QuizAnswer], reveal: bool, questions: tuple[DrawnView, ...]
) -> AttemptView:
    by_id = {drawn.id: drawn for drawn in questions}
    answer_views = {
        row.question_id: answer_view(by_id[row.question_id], row, reveal) for row in answers if row.question_id in by_id
    }
    return AttemptView(
        id=attempt.id,
        quiz=quiz,
        state=attempt.state,
        started_at=aware(attempt.started_at),
        deadline_at=aware(attempt.deadline_at) if attempt.deadline_at else None,
        finished_at=aware(attempt.finished_at) if attempt.finished_at else None,
        questions=questions,
        answers=answer_views,
        correct_count=attempt.correct_count,
        score_percent=attempt.score_percent,
        passed=attempt.passed,
        reveal=reveal,
    )


def stored_questions(drawn: list[tuple[str, dict[str, ParameterValue], list[tuple[int, str]]]]) -> list[Any]:
    """The JSON stored in quiz_attempts.questions."""
    return [
        {"id": question_id, "params": params, "options": [[index, token] for index, token in options]}
        for question_id, params, options in drawn
    ]
