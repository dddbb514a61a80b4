"""JSON API of the quizzes (DESIGN §4): list quizzes, start an attempt, answer, finish, read an attempt.

An attempt belongs to the learner cookie that started it; any other caller gets 404. Nothing about
correctness leaves the server before the answer is locked: a started attempt lists prompts, option tokens and
units only. Every response is per learner, so none may be cached.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from app.quiz import service
from app.quiz.errors import (
    AlreadyAnsweredError,
    AttemptClosedError,
    AttemptNotFoundError,
    InvalidSubmissionError,
    QuizNotFoundError,
    RateLimitedError,
)
from app.quiz.views import AnswerView, AttemptView
from app.web.csrf import ApiOriginDep
from app.web.deps import app_state
from app.web.errors import request_language
from app.web.i18n import SUPPORTED_LANGUAGES
from app.web.identity import learner_identity
from app.web.quiz_messages import QuizText
from app.web.routes.api_simulator import ErrorOut  # one error shape for the whole API

router = APIRouter(prefix="/api/v1", tags=["quizzes"])

NO_STORE = {"cache-control": "no-store"}


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


class AnswerOut(BaseModel):
    question_id: str
    correct: bool
    explanation: str
    correct_tokens: list[str] | None = None
    correct_value: float | None = Field(default=None, description="In `unit`.")
    unit: str | None = None
    feedback: list[str] = Field(description="What the chosen options or the numeric slip reveal.")


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


def _language(request: Request, lang: str | None) -> str:
    return lang if lang in SUPPORTED_LANGUAGES else request_language(request)


def _text(request: Request, language: str) -> QuizText:
    return QuizText(app_state(request).translations[language], language)


def _question_out(attempt: AttemptView, language: str) -> list[QuestionOut]:
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


def _answer_out(answer: AnswerView, text: QuizText) -> AnswerOut:
    tokens = answer.correct_tokens
    return AnswerOut(
        question_id=answer.question_id,
        correct=answer.correct,
        explanation=answer.explanation(text.language),
        correct_tokens=list(tokens) if tokens is not None else None,
        correct_value=answer.correct_value,
        unit=answer.drawn.unit,
        feedback=[f"{line.label}: {line.text}" if line.label else line.text for line in text.feedback(answer)],
    )


def _json(model: BaseModel, status_code: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        model.model_dump(mode="json", exclude_none=isinstance(model, AnswerOut)),
        status_code=status_code,
        headers=NO_STORE | (headers or {}),
    )


def _error(status_code: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status_code, headers=NO_STORE | (headers or {}))


def _now() -> datetime:
    return datetime.now(UTC)


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


LangQuery = Annotated[str | None, Query(description="en or ko; default: the negotiated language.")]


@router.get("/quizzes", name="api_quizzes", response_model=list[QuizOut])
def list_quizzes(request: Request, lang: LangQuery = None) -> JSONResponse:
    language = _language(request, lang)
    quizzes = [
        QuizOut(
            id=quiz.id,
            title=quiz.title.get(language),
            chapter=quiz.chapter,
            question_count=quiz.draw,
            pass_percent=quiz.pass_percent,
        )
        for quiz in app_state(request).quizzes
    ]
    return JSONResponse([quiz.model_dump(mode="json") for quiz in quizzes], headers=NO_STORE)


@router.post(
    "/quizzes/{quiz_id}/attempts",
    name="api_start_attempt",
    status_code=201,
    response_model=AttemptCreatedOut,
    responses={
        403: {"model": ErrorOut, "description": "A foreign Origin."},
        404: {"model": ErrorOut, "description": "No such quiz."},
        429: {"model": ErrorOut, "description": "Too many attempts; see Retry-After."},
    },
)
def start_attempt(request: Request, quiz_id: str, _origin: ApiOriginDep, lang: LangQuery = None) -> JSONResponse:
    language = _language(request, lang)
    state = app_state(request)
    text = _text(request, language)
    try:
        with state.database.write_session() as session:
            attempt = service.start_attempt(
                session,
                state.quizzes,
                learner_identity(request).learner_id,
                language,
                quiz_id,
                _client(request),
                _now(),
                state.quiz_policy,
            )
    except QuizNotFoundError:
        return _error(404, text.not_found())
    except RateLimitedError as error:
        quiz = state.quizzes.get(quiz_id)
        return _error(
            429,
            text.rate_limited(error, quiz.attempts_per_day if quiz else None),
            {"retry-after": str(error.retry_after_s)},
        )
    created = AttemptCreatedOut(
        attempt_id=attempt.id,
        quiz_id=attempt.quiz.id,
        questions=_question_out(attempt, language),
        deadline=attempt.deadline_at,
    )
    return _json(created, status_code=201)


@router.post(
    "/attempts/{attempt_id}/answers",
    name="api_answer",
    response_model=AnswerOut,
    response_model_exclude_none=True,
    responses={
        403: {"model": ErrorOut, "description": "A foreign Origin."},
        404: {"model": ErrorOut, "description": "No such attempt for this learner."},
        409: {
            "model": AnswerConflictOut,
            "description": "Already answered (the stored answer is returned), or the attempt is over.",
        },
        422: {"model": ErrorOut, "description": "Malformed answer, unknown question or option token."},
        429: {"model": ErrorOut, "description": "Too many answers; see Retry-After."},
    },
    openapi_extra={
        "requestBody": {"required": True, "content": {"application/json": {"schema": AnswerIn.model_json_schema()}}}
    },
)
async def answer(request: Request, attempt_id: str, _origin: ApiOriginDep, lang: LangQuery = None) -> JSONResponse:
    language = _language(request, lang)
    text = _text(request, language)
    try:
        payload = AnswerIn.model_validate(json.loads(await request.body()))
    except (ValueError, ValidationError):
        return _error(422, text.submission_error("malformed"))
    return await _run_answer(request, attempt_id, payload, text)


async def _run_answer(request: Request, attempt_id: str, payload: AnswerIn, text: QuizText) -> JSONResponse:
    # The database work is synchronous: off the event loop, like FastAPI does for plain `def` routes.
    return await run_in_threadpool(_answer_sync, request, attempt_id, payload, text)


def _answer_sync(request: Request, attempt_id: str, payload: AnswerIn, text: QuizText) -> JSONResponse:
    state = app_state(request)
    submission: service.Submission
    if payload.tokens is not None and payload.value is None:
        submission = service.ChoiceSubmission(tuple(payload.tokens))
    elif payload.value is not None and payload.tokens is None:
        submission = service.NumericSubmission(payload.value, payload.unit)
    else:
        return _error(422, text.submission_error("malformed"))
    try:
        with state.database.write_connection() as connection:
            answered = service.submit_answer(
                connection,
                state.quizzes,
                learner_identity(request).learner_id,
                attempt_id,
                payload.question_id,
                submission,
                _client(request),
                _now(),
                state.quiz_policy,
            )
    except AttemptNotFoundError:
        return _error(404, text.not_found())
    except AlreadyAnsweredError as error:
        conflict = AnswerConflictOut(detail=text.conflict("already_answered"), answer=_answer_out(error.answer, text))
        return JSONResponse(conflict.model_dump(mode="json", exclude_none=True), status_code=409, headers=NO_STORE)
    except AttemptClosedError as error:
        return _error(409, text.conflict("timed_out" if error.timed_out else "closed"))
    except InvalidSubmissionError as error:
        return _error(422, text.submission_error(error.code, _unit_of(request, attempt_id, payload.question_id)))
    except RateLimitedError as error:
        return _error(429, text.rate_limited(error, None), {"retry-after": str(error.retry_after_s)})
    return _json(_answer_out(answered.answer, text))


def _unit_of(request: Request, attempt_id: str, question_id: str) -> str | None:
    state = app_state(request)
    for quiz in state.quizzes:
        question = quiz.question(question_id)
        if question is not None:
            return question.unit
    return None


@router.post(
    "/attempts/{attempt_id}/finish",
    name="api_finish",
    response_model=FinishOut,
    responses={
        403: {"model": ErrorOut, "description": "A foreign Origin."},
        404: {"model": ErrorOut, "description": "No such attempt for this learner."},
    },
)
def finish(request: Request, attempt_id: str, _origin: ApiOriginDep, lang: LangQuery = None) -> JSONResponse:
    language = _language(request, lang)
    state = app_state(request)
    try:
        with state.database.write_session() as session:
            attempt = service.finish_attempt(
                session, state.quizzes, learner_identity(request).learner_id, attempt_id, _now()
            )
    except AttemptNotFoundError:
        return _error(404, _text(request, language).not_found())
    return _json(FinishOut(score_percent=attempt.score_percent or 0, passed=bool(attempt.passed)))


@router.get(
    "/attempts/{attempt_id}",
    name="api_attempt",
    response_model=AttemptOut,
    responses={404: {"model": ErrorOut, "description": "No such attempt for this learner."}},
)
def get_attempt(request: Request, attempt_id: str, lang: LangQuery = None) -> JSONResponse:
    language = _language(request, lang)
    state = app_state(request)
    text = _text(request, language)
    try:
        with state.database.write_session() as session:
            attempt = service.get_attempt(
                session, state.quizzes, learner_identity(request).learner_id, attempt_id, _now()
            )
    except AttemptNotFoundError:
        return _error(404, text.not_found())
    out = AttemptOut(
        attempt_id=attempt.id,
        quiz_id=attempt.quiz.id,
        state=attempt.state,
        started_at=attempt.started_at,
        deadline=attempt.deadline_at,
        finished_at=attempt.finished_at,
        questions=_question_out(attempt, language),
        answers=[_answer_out(answer, text) for answer in attempt.answers.values()],
        score_percent=attempt.score_percent,
        passed=attempt.passed,
    )
    return _json(out)
