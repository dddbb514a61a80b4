"""JSON API of the quizzes (DESIGN §4): list quizzes, start an attempt, answer, finish, read an attempt.

An attempt belongs to the learner cookie that started it; any other caller gets 404. Nothing about
correctness leaves the server before the answer is locked: a started attempt lists prompts, option tokens and
units only. Every response is per learner, so none may be cached. Errors are the service's domain errors,
answered by app.web.exceptions.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field

from app.quiz.messages import QuizText
from app.quiz.readmodels import AnswerView, AttemptView
from app.quiz.service import ChoiceSubmission, NumericSubmission, Submission
from app.web.deps import ContextDep, QuizServiceDep, no_store
from app.web.i18n import request_language
from app.web.routes.api_simulator import ErrorOut  # one error shape for the whole API
from app.web.state import app_state

router = APIRouter(prefix="/api/v1", tags=["quizzes"], dependencies=[Depends(no_store)])


class QuizOut(BaseModel):
    id: str = Field(description="The chapter slug for a chapter quiz; 'exam' for the final assessment.")
    title: str
    chapter: str | None = Field(description="The chapter the quiz belongs to; null for the exam.")
    question_count: int = Field(description="Questions per attempt.")
    pass_percent: int


class OptionOut(BaseModel):
    token: str = Field(description="Identifies the option within this attempt only.")
    text: str


class QuestionOut(BaseModel):
    id: str
    type: Literal["single", "multiple", "numeric"]
    prompt: str
    options: list[OptionOut] = Field(description="Empty for numeric questions.")
    unit: str | None = Field(description="The unit a numeric answer is expected in (others are converted).")


class AttemptCreatedOut(BaseModel):
    attempt_id: str
    quiz_id: str
    questions: list[QuestionOut]
    deadline: datetime | None = Field(default=None, description="When the attempt ends, if it has a time limit.")


class AnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question_id: str = Field(max_length=64)
    tokens: list[Annotated[str, Field(max_length=64)]] | None = Field(
        default=None, max_length=32, description="Chosen option tokens (single and multiple choice)."
    )
    value: float | Annotated[str, Field(max_length=64)] | None = Field(
        default=None, description="A number, or a quantity such as '3.9 ms' or '3.6 Tb/s' (numeric questions)."
    )
    unit: str | None = Field(default=None, max_length=16, description="The unit of `value`, if not in it.")


UNTIL_PASSED = "On the final exam: null until the attempt is over and the learner has passed the exam."


class AnswerOut(BaseModel):
    question_id: str
    correct: bool | None = Field(description=f"Whether the answer is right. {UNTIL_PASSED}")
    explanation: str | None = Field(description=UNTIL_PASSED)
    correct_tokens: list[str] | None = Field(default=None, description=f"Choice questions. {UNTIL_PASSED}")
    correct_value: float | None = Field(default=None, description=f"Numeric questions, in `unit`. {UNTIL_PASSED}")
    unit: str | None = None
    feedback: list[str] | None = Field(
        description=f"What the chosen options or the numeric slip reveal (a named misconception). {UNTIL_PASSED}"
    )


class ChapterToReviewOut(BaseModel):
    chapter: str = Field(description="The chapter's slug.")
    sections: list[str] = Field(description="Heading ids of the chapter (`/{lang}/guides/{chapter}#{section}`).")


class AnswerConflictOut(BaseModel):
    detail: str
    answer: AnswerOut | None = Field(default=None, description="The stored, locked answer (already answered).")


class FinishOut(BaseModel):
    score_percent: int
    passed: bool


class AttemptOut(BaseModel):
    attempt_id: str
    quiz_id: str
    state: Literal["created", "in_progress", "finished", "expired"]
    started_at: datetime
    deadline: datetime | None
    finished_at: datetime | None
    questions: list[QuestionOut]
    answers: list[AnswerOut]
    score_percent: int | None
    passed: bool | None
    sections_to_review: list[ChapterToReviewOut] | None = Field(
        description="Once the attempt is over: the sections of the questions missed, by chapter, never per question."
    )


def _text(request: Request) -> QuizText:
    language = request_language(request)
    return QuizText(app_state(request).translations[language], language)


def questions_out(attempt: AttemptView, language: str) -> list[QuestionOut]:
    return [
        QuestionOut(
            id=drawn.id,
            type=drawn.question.type,
            prompt=drawn.prompt(language),
            options=[OptionOut(token=shown.token, text=shown.text(language)) for shown in drawn.options],
            unit=drawn.unit,
        )
        for drawn in attempt.questions
    ]


def answer_out(answer: AnswerView, text: QuizText) -> AnswerOut:
    tokens = answer.correct_tokens
    feedback = [f"{line.label}: {line.text}" if line.label else line.text for line in text.feedback(answer)]
    return AnswerOut(
        question_id=answer.question_id,
        correct=answer.verdict,
        explanation=answer.explanation(text.language),
        correct_tokens=list(tokens) if tokens is not None else None,
        correct_value=answer.correct_value,
        unit=answer.drawn.unit,
        feedback=feedback if answer.reveal else None,
    )


def attempt_out(attempt: AttemptView, text: QuizText) -> AttemptOut:
    return AttemptOut(
        attempt_id=attempt.id,
        quiz_id=attempt.quiz.id,
        state=attempt.state,
        started_at=attempt.started_at,
        deadline=attempt.deadline_at,
        finished_at=attempt.finished_at,
        questions=questions_out(attempt, text.language),
        answers=[answer_out(answer, text) for answer in attempt.answers.values()],
        score_percent=attempt.score_percent,
        passed=attempt.passed,
        sections_to_review=None
        if attempt.is_open
        else [
            ChapterToReviewOut(chapter=group.chapter, sections=list(group.sections))
            for group in attempt.sections_to_review()
        ],
    )


def _submission(payload: AnswerIn) -> Submission:
    if payload.tokens is not None and payload.value is None:
        return ChoiceSubmission(tuple(payload.tokens))
    if payload.value is not None and payload.tokens is None:
        return NumericSubmission(payload.value, payload.unit)
    raise RequestValidationError([{"type": "value_error", "loc": ("body",), "msg": "tokens or value"}])


LangQuery = Annotated[str | None, Query(description="en or ko; default: the negotiated language.")]


def _documented(status: int, description: str, model: type[BaseModel] = ErrorOut) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": model, "description": description}}


ERRORS = _documented(403, "A foreign Origin or Sec-Fetch-Site.")
NOT_FOUND = _documented(404, "No such attempt for this learner.")
UNAVAILABLE = _documented(503, "The database does not answer; see Retry-After.")


@router.get("/quizzes", name="api_quizzes", response_model=list[QuizOut])
async def list_quizzes(quiz: QuizServiceDep, context: ContextDep, lang: LangQuery = None) -> list[QuizOut]:
    return [
        QuizOut(
            id=item.id,
            title=item.title.get(context.language),
            chapter=item.chapter,
            question_count=item.draw,
            pass_percent=item.pass_percent,
        )
        for item in quiz.catalog
    ]


@router.post(
    "/quizzes/{quiz_id}/attempts",
    name="api_start_attempt",
    status_code=201,
    response_model=AttemptCreatedOut,
    responses=ERRORS
    | UNAVAILABLE
    | {
        404: {"model": ErrorOut, "description": "No such quiz."},
        429: {"model": ErrorOut, "description": "Too many attempts; see Retry-After."},
    },
)
async def start_attempt(
    quiz_id: str, quiz: QuizServiceDep, context: ContextDep, lang: LangQuery = None
) -> AttemptCreatedOut:
    attempt = await quiz.start(context, quiz.quiz(quiz_id))
    return AttemptCreatedOut(
        attempt_id=attempt.id,
        quiz_id=attempt.quiz.id,
        questions=questions_out(attempt, context.language),
        deadline=attempt.deadline_at,
    )


@router.post(
    "/attempts/{attempt_id}/answers",
    name="api_answer",
    response_model=AnswerOut,
    responses=ERRORS
    | NOT_FOUND
    | UNAVAILABLE
    | {
        409: {
            "model": AnswerConflictOut,
            "description": "Already answered (the stored answer is returned), or the attempt is over.",
        },
        422: {"model": ErrorOut, "description": "Malformed answer, unknown question or option token."},
        429: {"model": ErrorOut, "description": "Too many answers; see Retry-After."},
    },
)
async def answer(
    attempt_id: str,
    payload: AnswerIn,
    request: Request,
    quiz: QuizServiceDep,
    context: ContextDep,
    lang: LangQuery = None,
) -> AnswerOut:
    answered = await quiz.answer(context, attempt_id, payload.question_id, _submission(payload))
    return answer_out(answered.answer, _text(request))


@router.post(
    "/attempts/{attempt_id}/finish",
    name="api_finish",
    response_model=FinishOut,
    responses=ERRORS | NOT_FOUND | UNAVAILABLE,
)
async def finish(attempt_id: str, quiz: QuizServiceDep, context: ContextDep, lang: LangQuery = None) -> FinishOut:
    attempt = await quiz.finish(context, attempt_id)
    return FinishOut(score_percent=attempt.score_percent or 0, passed=bool(attempt.passed))


@router.get("/attempts/{attempt_id}", name="api_attempt", response_model=AttemptOut, responses=NOT_FOUND | UNAVAILABLE)
async def get_attempt(
    attempt_id: str, request: Request, quiz: QuizServiceDep, context: ContextDep, lang: LangQuery = None
) -> AttemptOut:
    return attempt_out(await quiz.attempt(context, attempt_id), _text(request))
