"""Quiz pages: a chapter's practice quiz, the final exam, an attempt, its result and its review.

Every page and fragment is per learner and holds answers, so none may be cached (Cache-Control: no-store) or
kept in htmx's history cache (hx-history="false" in the page). An answer posts one question's form: with HTMX
the question's fragment comes back with its feedback; without JavaScript the browser is redirected to the
attempt page (POST-redirect-GET), where the same fragment now shows the feedback. Refusals (a locked answer, a
closed attempt, a bad value, a rate limit) are the service's domain errors, answered by app.web.exceptions.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.quiz.bank import Quiz
from app.quiz.deadline import ZONE_COOKIE, Deadline, deadline
from app.quiz.errors import RateLimitedError
from app.quiz.messages import QuizText
from app.quiz.readmodels import AttemptView
from app.quiz.service import MAX_TYPED_LENGTH, ChoiceSubmission, NumericSubmission, Submission
from app.web.cache_policy import PER_LEARNER
from app.web.deps import PageDep, QuizServiceDep
from app.web.htmx import wants_fragment
from app.web.templating.urls import url_path

router = APIRouter(include_in_schema=False)


def _see_other(page: PageDep, route: str, fragment: str = "", **params: str) -> Response:
    url = url_path(page.request, route, lang=page.language, **params)
    return RedirectResponse(f"{url}{fragment}", status_code=303, headers=PER_LEARNER)


def _text(page: PageDep) -> QuizText:
    return QuizText(page.state.translations[page.language], page.language)


def _deadline(page: PageDep, attempt: AttemptView | None) -> Deadline | None:
    """When an open timed attempt ends, in the time zone the learner's browser reported (else UTC)."""
    if attempt is None or not attempt.is_open:
        return None
    return deadline(attempt.deadline_at, page.context.now, page.request.cookies.get(ZONE_COOKIE))


def _submission(value: str | None, tokens: list[str]) -> Submission:
    return NumericSubmission(value.strip()) if value is not None else ChoiceSubmission(tuple(tokens))


async def _landing(page: PageDep, quiz: QuizServiceDep, chosen: Quiz) -> Response:
    context = page.context
    landing = await quiz.landing(context, chosen)
    passed = landing.exam is not None and landing.exam.passed
    certificate = await page.state.certificates.current(context) if passed else None
    wait = landing.exam.wait(context.now) if landing.exam is not None else None
    message = None
    if wait is not None:  # the page offers no start button then: it says why, and for how long
        message = _text(page).rate_limited(RateLimitedError(wait.retry_after_s, wait.reason, quiz=chosen))
    return page.render(
        "quiz/landing.html",
        landing=landing,
        message=message,
        deadline=_deadline(page, landing.latest),
        certificate=certificate,
    )


async def _start(page: PageDep, quiz: QuizServiceDep, chosen: Quiz) -> Response:
    attempt = await quiz.start(page.context, chosen)
    return _see_other(page, "attempt", attempt_id=attempt.id)


@router.get("/{lang}/guides/{slug}/quiz", name="quiz")
async def chapter_quiz(page: PageDep, quiz: QuizServiceDep, slug: str) -> Response:
    return await _landing(page, quiz, quiz.chapter_quiz(slug))


@router.post("/{lang}/guides/{slug}/quiz", name="quiz_start")
async def start_chapter_quiz(page: PageDep, quiz: QuizServiceDep, slug: str) -> Response:
    return await _start(page, quiz, quiz.chapter_quiz(slug))


@router.get("/{lang}/exam", name="exam")
async def exam(page: PageDep, quiz: QuizServiceDep) -> Response:
    return await _landing(page, quiz, quiz.exam())


@router.post("/{lang}/exam", name="exam_start")
async def start_exam(page: PageDep, quiz: QuizServiceDep) -> Response:
    return await _start(page, quiz, quiz.exam())


@router.get("/{lang}/attempts/{attempt_id}", name="attempt")
async def attempt_page(
    page: PageDep,
    quiz: QuizServiceDep,
    attempt_id: str,
    question: str | None = None,  # with `error`: the answer a browser without JavaScript had refused
    error: str | None = None,
    value: Annotated[str | None, Query(max_length=MAX_TYPED_LENGTH)] = None,  # and what was typed, shown again
) -> Response:
    attempt = await quiz.attempt(page.context, attempt_id)
    if not attempt.is_open:
        return _see_other(page, "attempt_result", attempt_id=attempt.id)
    errors = _text(page).returned_error(attempt, question, error)
    typed = {question: value} if question in errors and value else {}
    return page.render(
        "quiz/attempt.html",
        attempt=attempt,
        quiz=attempt.quiz,
        errors=errors,
        typed=typed,
        deadline=_deadline(page, attempt),
    )


@router.post("/{lang}/attempts/{attempt_id}/questions/{question_id}", name="attempt_answer")
async def answer_question(
    page: PageDep,
    quiz: QuizServiceDep,
    attempt_id: str,
    question_id: str,
    value: Annotated[str | None, Form()] = None,
    tokens: Annotated[list[str], Form()] = [],  # noqa: B006  (FastAPI copies defaults; the service bounds it)
) -> Response:
    answered = await quiz.answer(page.context, attempt_id, question_id, _submission(value, tokens))
    if not wants_fragment(page.request):
        return _see_other(page, "attempt", f"#question-{question_id}", attempt_id=attempt_id)
    return page.render(
        "quiz/_answered.html",
        attempt=answered.attempt,
        drawn=answered.answer.drawn,
        answer=answered.answer,
        error=None,
        notice=None,
    )


@router.post("/{lang}/attempts/{attempt_id}/finish", name="attempt_finish")
async def finish(page: PageDep, quiz: QuizServiceDep, attempt_id: str) -> Response:
    await quiz.finish(page.context, attempt_id)
    return _see_other(page, "attempt_result", attempt_id=attempt_id)


@router.get("/{lang}/attempts/{attempt_id}/result", name="attempt_result")
async def result(page: PageDep, quiz: QuizServiceDep, attempt_id: str) -> Response:
    attempt = await quiz.attempt(page.context, attempt_id)
    if attempt.is_open:
        return _see_other(page, "attempt", attempt_id=attempt.id)
    has_exam = quiz.catalog.exam is not None  # the last chapter's result points on to it
    return page.render("quiz/result.html", attempt=attempt, quiz=attempt.quiz, has_exam=has_exam)


@router.get("/{lang}/attempts/{attempt_id}/review", name="attempt_review")
async def review(page: PageDep, quiz: QuizServiceDep, attempt_id: str) -> Response:
    attempt = await quiz.attempt(page.context, attempt_id)
    if attempt.is_open:  # the review shows every right answer it may: only once the attempt is over
        return _see_other(page, "attempt", attempt_id=attempt.id)
    if not attempt.reveal:  # an exam not yet passed is judged as a whole: its result page says all there is
        return _see_other(page, "attempt_result", attempt_id=attempt.id)
    return page.render("quiz/review.html", attempt=attempt, quiz=attempt.quiz)
