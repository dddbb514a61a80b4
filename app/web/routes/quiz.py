"""Quiz pages: a chapter's practice quiz, the final exam, an attempt, its result and its review.

Every page and fragment is per learner and holds answers, so none may be cached (Cache-Control: no-store) or
kept in htmx's history cache (hx-history="false" in the page). An answer posts one question's form: with HTMX
the question's fragment comes back with its feedback; without JavaScript the browser is redirected to the
attempt page (POST-redirect-GET), where the same fragment now shows the feedback.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import RedirectResponse
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from app.db import DatabaseBusyError
from app.quiz import service
from app.quiz.bank import Quiz
from app.quiz.errors import (
    AlreadyAnsweredError,
    AttemptClosedError,
    AttemptNotFoundError,
    InvalidSubmissionError,
    QuizNotFoundError,
    RateLimitedError,
)
from app.quiz.views import AnswerView, AttemptView, DrawnView
from app.web.csrf import CsrfDep, require_csrf
from app.web.deps import app_state, require_chapter, require_language
from app.web.htmx import VARY, wants_fragment
from app.web.identity import learner_identity
from app.web.quiz_messages import QuizText
from app.web.state import AppState

router = APIRouter(include_in_schema=False)

NO_STORE = {"cache-control": "no-store", "vary": VARY}


def now() -> datetime:
    return datetime.now(UTC)


def client_key(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _text(state: AppState, language: str) -> QuizText:
    return QuizText(state.translations[language], language)


def _render(
    request: Request,
    state: AppState,
    name: str,
    language: str,
    context: Mapping[str, Any],
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    text = _text(state, language)
    app = request.app

    def chapter_url(slug: str) -> str:
        return _chapter_url(app, language, slug)

    full_context = {
        "quiz_text": text,
        "feedback_for": text.feedback,
        "expected_for": text.expected,
        "chapter_url": chapter_url,
    } | dict(context)
    return state.templates.render(
        request, name, language, full_context, status_code=status_code, headers=NO_STORE | dict(headers or {})
    )


@lru_cache(maxsize=256)
def _chapter_url(app: Starlette, language: str, slug: str) -> str:
    # Starlette finds a route's URL by trying every route in turn; the answer fragment needs it on every answer.
    return str(app.url_path_for("chapter", lang=language, slug=slug))


def _landing(
    request: Request,
    lang: str,
    quiz: Quiz,
    message: str | None = None,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    state = app_state(request)
    learner_id = learner_identity(request).learner_id
    with state.database.read_session() as session:
        latest_id = service.latest_attempt(session, state.quizzes, learner_id, quiz.id)
        best = service.best_scores(session, learner_id).get(quiz.id)
        exam = service.exam_status(session, quiz, learner_id, now()) if quiz.is_exam else None
    if message is None and exam is not None and exam.next_start_at is not None and exam.wait_reason:
        wait_s = max(1, int((exam.next_start_at - now()).total_seconds()))
        message = _text(state, lang).rate_limited(RateLimitedError(wait_s, exam.wait_reason), quiz.attempts_per_day)
    latest = None
    if latest_id is not None:
        with state.database.write_session() as session:
            latest = service.get_attempt(session, state.quizzes, learner_id, latest_id, now())
    return _render(
        request,
        state,
        "quiz/landing.html",
        lang,
        {
            "quiz": quiz,
            "latest": latest,
            "best": best,
            "exam": exam,
            "message": message,
        },
        status_code=status_code,
        headers=headers,
    )


def _chapter_quiz(state: AppState, slug: str) -> Quiz:
    require_chapter(state, slug)
    quiz = state.quizzes.chapter_quiz(slug)
    if quiz is None:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND)
    return quiz


def _exam(state: AppState) -> Quiz:
    quiz = state.quizzes.exam
    if quiz is None:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND)
    return quiz


@router.get("/{lang}/guides/{slug}/quiz", name="quiz")
def chapter_quiz(request: Request, lang: str, slug: str) -> Response:
    language = require_language(lang)
    return _landing(request, language, _chapter_quiz(app_state(request), slug))


@router.post("/{lang}/guides/{slug}/quiz", name="quiz_start")
def start_chapter_quiz(request: Request, lang: str, slug: str, _csrf: CsrfDep) -> Response:
    language = require_language(lang)
    return _start(request, language, _chapter_quiz(app_state(request), slug))


@router.get("/{lang}/exam", name="exam")
def exam(request: Request, lang: str) -> Response:
    language = require_language(lang)
    return _landing(request, language, _exam(app_state(request)))


@router.post("/{lang}/exam", name="exam_start")
def start_exam(request: Request, lang: str, _csrf: CsrfDep) -> Response:
    language = require_language(lang)
    return _start(request, language, _exam(app_state(request)))


def _start(request: Request, lang: str, quiz: Quiz) -> Response:
    state = app_state(request)
    learner_id = learner_identity(request).learner_id
    try:
        with state.database.write_session() as session:
            attempt = service.start_attempt(
                session, state.quizzes, learner_id, lang, quiz.id, client_key(request), now(), state.quiz_policy
            )
    except QuizNotFoundError:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND) from None
    except RateLimitedError as error:
        message = _text(state, lang).rate_limited(error, quiz.attempts_per_day)
        return _landing(
            request, lang, quiz, message, status.HTTP_429_TOO_MANY_REQUESTS, {"retry-after": str(error.retry_after_s)}
        )
    return RedirectResponse(
        request.app.url_path_for("attempt", lang=lang, attempt_id=attempt.id),
        status_code=status.HTTP_303_SEE_OTHER,
        headers=NO_STORE,
    )


def _load_attempt(request: Request, attempt_id: str) -> AttemptView:
    state = app_state(request)
    try:
        with state.database.write_session() as session:
            return service.get_attempt(session, state.quizzes, learner_identity(request).learner_id, attempt_id, now())
    except AttemptNotFoundError:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND) from None


@router.get("/{lang}/attempts/{attempt_id}", name="attempt")
def attempt_page(request: Request, lang: str, attempt_id: str) -> Response:
    language = require_language(lang)
    attempt = _load_attempt(request, attempt_id)
    if not attempt.is_open:
        return RedirectResponse(
            request.app.url_path_for("attempt_result", lang=language, attempt_id=attempt.id),
            status_code=status.HTTP_303_SEE_OTHER,
            headers=NO_STORE,
        )
    return _attempt_page(request, language, attempt)


def _attempt_page(
    request: Request,
    lang: str,
    attempt: AttemptView,
    errors: Mapping[str, str] | None = None,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    return _render(
        request,
        app_state(request),
        "quiz/attempt.html",
        lang,
        {
            "attempt": attempt,
            "quiz": attempt.quiz,
            "errors": errors or {},
            "now": now(),
        },
        status_code=status_code,
        headers=headers,
    )


def _question_fragment(
    request: Request,
    lang: str,
    attempt: AttemptView,
    drawn: DrawnView,
    answer: AnswerView | None,
    error: str | None = None,
    notice: str | None = None,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    return _render(
        request,
        app_state(request),
        "quiz/_answered.html",
        lang,
        {
            "attempt": attempt,
            "drawn": drawn,
            "answer": answer,
            "error": error,
            "notice": notice,
        },
        status_code=status_code,
        headers=headers,
    )


async def answer_question(request: Request) -> Response:
    # The hottest write in the course, so a plain Starlette route (registered below): FastAPI's parameter and
    # dependency resolution cost more than grading. CSRF, the path and the form are read here.
    #
    # On SQLite the transaction and the rendering run right here, on the event loop: they are a fraction of a
    # millisecond of CPU with no network wait, less than handing them to a thread costs. The one thing that could
    # make them wait, another writer holding SQLite's lock, is refused at once (wait=False) and the answer then
    # waits for the lock in a thread instead. PostgreSQL's statements wait on the network: always in a thread.
    language = require_language(request.path_params["lang"])
    attempt_id, question_id = request.path_params["attempt_id"], request.path_params["question_id"]
    await require_csrf(request)
    form = await request.form()
    value = form.get("value")
    tokens = tuple(token for token in form.getlist("tokens") if isinstance(token, str))
    submission: service.Submission = (
        service.NumericSubmission(value.strip()) if isinstance(value, str) else service.ChoiceSubmission(tokens)
    )
    if app_state(request).database.is_sqlite:
        try:
            return _answer_question(request, language, attempt_id, question_id, submission, wait=False)
        except DatabaseBusyError:
            pass
    return await run_in_threadpool(_answer_question, request, language, attempt_id, question_id, submission)


router.add_route(
    "/{lang}/attempts/{attempt_id}/questions/{question_id}",
    answer_question,
    methods=["POST"],
    name="attempt_answer",
    include_in_schema=False,
)


def _answer_question(
    request: Request,
    language: str,
    attempt_id: str,
    question_id: str,
    submission: service.Submission,
    wait: bool = True,
) -> Response:
    state = app_state(request)
    text = _text(state, language)
    learner_id = learner_identity(request).learner_id
    fragment = wants_fragment(request)
    try:
        with state.database.write_connection(wait) as connection:
            answered = service.submit_answer(
                connection,
                state.quizzes,
                learner_id,
                attempt_id,
                question_id,
                submission,
                client_key(request),
                now(),
                state.quiz_policy,
            )
    except AttemptNotFoundError:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND) from None
    except AlreadyAnsweredError as error:
        if not fragment:
            return _to_question(request, language, attempt_id, question_id)
        return _question_fragment(
            request,
            language,
            error.attempt,
            error.answer.drawn,
            error.answer,
            notice=text.conflict("already_answered"),
            status_code=status.HTTP_409_CONFLICT,
        )
    except AttemptClosedError as error:
        if not fragment:
            return RedirectResponse(
                request.app.url_path_for("attempt_result", lang=language, attempt_id=attempt_id),
                status_code=status.HTTP_303_SEE_OTHER,
                headers=NO_STORE,
            )
        drawn = error.attempt.question(question_id)
        assert drawn is not None  # the service checked the question belongs to the attempt
        return _question_fragment(
            request,
            language,
            error.attempt,
            drawn,
            None,
            error=text.conflict("timed_out" if error.timed_out else "closed"),
            status_code=status.HTTP_409_CONFLICT,
        )
    except (InvalidSubmissionError, RateLimitedError) as error:
        # A read, not _load_attempt: this may run on the event loop, where nothing may wait for a write lock.
        try:
            with state.database.read_session() as session:
                attempt = service.read_attempt(session, state.quizzes, learner_id, attempt_id)
        except AttemptNotFoundError:
            raise HTTPException(status_code=status.HTTP_404_NOT_FOUND) from None
        drawn = attempt.question(question_id)
        if drawn is None:
            raise HTTPException(status_code=status.HTTP_404_NOT_FOUND) from None
        if isinstance(error, RateLimitedError):
            message = text.rate_limited(error, None)
            code, headers = status.HTTP_429_TOO_MANY_REQUESTS, {"retry-after": str(error.retry_after_s)}
        else:
            message = text.submission_error(error.code, drawn.unit)
            code, headers = status.HTTP_422_UNPROCESSABLE_CONTENT, {}
        if fragment:
            return _question_fragment(
                request,
                language,
                attempt,
                drawn,
                attempt.answers.get(question_id),
                error=message,
                status_code=code,
                headers=headers,
            )
        return _attempt_page(request, language, attempt, {question_id: message}, code, headers)
    if not fragment:
        return _to_question(request, language, attempt_id, question_id)
    return _question_fragment(request, language, answered.attempt, answered.answer.drawn, answered.answer)


def _to_question(request: Request, lang: str, attempt_id: str, question_id: str) -> Response:
    url = request.app.url_path_for("attempt", lang=lang, attempt_id=attempt_id)
    return RedirectResponse(f"{url}#question-{question_id}", status_code=status.HTTP_303_SEE_OTHER, headers=NO_STORE)


@router.post("/{lang}/attempts/{attempt_id}/finish", name="attempt_finish")
def finish(request: Request, lang: str, attempt_id: str, _csrf: CsrfDep) -> Response:
    language = require_language(lang)
    state = app_state(request)
    try:
        with state.database.write_session() as session:
            service.finish_attempt(session, state.quizzes, learner_identity(request).learner_id, attempt_id, now())
    except AttemptNotFoundError:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND) from None
    return RedirectResponse(
        request.app.url_path_for("attempt_result", lang=language, attempt_id=attempt_id),
        status_code=status.HTTP_303_SEE_OTHER,
        headers=NO_STORE,
    )


@router.get("/{lang}/attempts/{attempt_id}/result", name="attempt_result")
def result(request: Request, lang: str, attempt_id: str) -> Response:
    language = require_language(lang)
    attempt = _load_attempt(request, attempt_id)
    if attempt.is_open:
        return RedirectResponse(
            request.app.url_path_for("attempt", lang=language, attempt_id=attempt.id),
            status_code=status.HTTP_303_SEE_OTHER,
            headers=NO_STORE,
        )
    return _render(
        request, app_state(request), "quiz/result.html", language, {"attempt": attempt, "quiz": attempt.quiz}
    )


@router.get("/{lang}/attempts/{attempt_id}/review", name="attempt_review")
def review(request: Request, lang: str, attempt_id: str) -> Response:
    language = require_language(lang)
    attempt = _load_attempt(request, attempt_id)
    if attempt.is_open:  # the review shows every right answer: only once the attempt is over
        return RedirectResponse(
            request.app.url_path_for("attempt", lang=language, attempt_id=attempt.id),
            status_code=status.HTTP_303_SEE_OTHER,
            headers=NO_STORE,
        )
    return _render(
        request, app_state(request), "quiz/review.html", language, {"attempt": attempt, "quiz": attempt.quiz}
    )
