"""Domain errors become HTTP responses here, once (warehouse's exception views are the model).

Each view answers as the request needs: JSON `{"detail": ...}` under /api/, the question's fragment for an
HTMX swap, and a page (or a redirect to one) for a plain form post or link, always in the learner's language.
Routes never catch a domain error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlencode

from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Match

from app.certificates.errors import (
    ArtifactUnavailableError,
    CertificateNotFoundError,
    CertificateRateLimitedError,
    InvalidNameError,
    NotEligibleError,
    StatusListNotFoundError,
)
from app.certificates.messages import CertificateText
from app.certificates.readmodels import Claim
from app.content.errors import ChapterNotFoundError
from app.db import DatabaseUnavailableError
from app.i18n import _
from app.newsletter.errors import (
    InvalidAddressError,
    MailUnavailableError,
    SignupRateLimitedError,
    TokenInvalidError,
)
from app.newsletter.messages import NewsletterText
from app.quiz.deadline import ZONE_COOKIE, deadline
from app.quiz.errors import (
    AlreadyAnsweredError,
    AttemptClosedError,
    AttemptNotFoundError,
    InvalidSubmissionError,
    QuestionError,
    QuizNotFoundError,
    RateLimitedError,
    UnknownQuestionError,
)
from app.quiz.messages import QuizText
from app.web import cache_policy
from app.web.cache_policy import PER_LEARNER
from app.web.htmx import wants_fragment
from app.web.i18n import request_language
from app.web.routes.api_quiz import AnswerConflictOut, answer_out
from app.web.routes.newsletter import LINK_HEADERS, signup_form
from app.web.state import app_state
from app.web.templating.urls import url_path
from app.web.validation_messages import validation_message

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
RETRY_UNAVAILABLE_S = 30

HTTP_MESSAGES: dict[int, str] = {
    400: _("The request could not be read."),
    403: _("This request was refused: it did not come from this site."),
    404: _("There is nothing at this address."),
    405: _("This address does not accept that kind of request."),
    422: _("Some of what was sent is not valid."),
    429: _("Too many requests. Please wait a moment and try again."),
    500: _("Something went wrong on our side. Please try again."),
    503: _("The service is not available right now. Please try again in a minute."),
}


def is_api(request: Request) -> bool:
    return request.url.path.startswith(API_PREFIX) or request.url.path == "/openapi.json"


def _text(request: Request) -> QuizText:
    language = request_language(request)
    return QuizText(app_state(request).translations[language], language)


def _json(detail: str, status_code: int, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status_code, headers=PER_LEARNER | (headers or {}))


def error_page(
    request: Request, status_code: int, message: str | None = None, headers: dict[str, str] | None = None
) -> Response:
    """The error page in the learner's language: the same bytes for everyone (no cookie, no learner data)."""
    return app_state(request).templates.page(
        request,
        "errors/error.html",
        request_language(request),
        {"status_code": status_code, "message": message},
        status_code=status_code,
        headers=cache_policy.headers(cache_policy.NO_STORE) | (headers or {}),
    )


def render_error(request: Request, status_code: int) -> Response:
    """For the last-resort middleware: JSON or a page, nothing that could fail again."""
    if is_api(request):
        return _json(_text(request).get(HTTP_MESSAGES[500]), status_code)
    return error_page(request, status_code)


def _question(
    request: Request,
    error: QuestionError,
    status_code: int,
    *,
    message: str | None = None,
    notice: str | None = None,
    headers: dict[str, str] | None = None,
    typed: str | None = None,
) -> Response:
    """The question's fragment, as an HTMX swap of the question shows it."""
    drawn = error.attempt.question(error.question_id)
    language = request_language(request)
    context = {
        "attempt": error.attempt,
        "drawn": drawn,
        "answer": error.attempt.answers.get(error.question_id),
        "error": message,
        "notice": notice,
        "typed": typed,
    }
    return app_state(request).templates.page(
        request,
        "quiz/_answered.html",
        language,
        context,
        status_code=status_code,
        headers=PER_LEARNER | (headers or {}),
    )


def _attempt_page(
    request: Request, error: QuestionError, status_code: int, message: str, headers: dict[str, str] | None = None
) -> Response:
    language = request_language(request)
    context = {
        "attempt": error.attempt,
        "quiz": error.attempt.quiz,
        "errors": {error.question_id: message},
        "deadline": deadline(error.attempt.deadline_at, app_state(request).clock(), request.cookies.get(ZONE_COOKIE)),
    }
    return app_state(request).templates.page(
        request, "quiz/attempt.html", language, context, status_code=status_code, headers=PER_LEARNER | (headers or {})
    )


def _redirect(request: Request, route: str, fragment: str = "", **params: Any) -> Response:
    url = url_path(request, route, lang=request_language(request), **params)
    return RedirectResponse(f"{url}{fragment}", status_code=303, headers=PER_LEARNER)


def _slash_alternate(request: Request) -> str | None:
    """The same path with its trailing slash added or dropped, if a route serves that one (Starlette's
    redirect_slashes does this too, but answers with an absolute URL built from the Host header)."""
    path = request.url.path
    alternate = path.rstrip("/") if path.endswith("/") else f"{path}/"
    if not alternate or alternate == path:
        return None
    scope = {**request.scope, "path": alternate}
    for route in request.app.router.routes:
        if route.matches(scope)[0] == Match.FULL:
            query = request.url.query
            return f"{alternate}?{query}" if query else alternate
    return None


async def http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    if error.status_code == 404 and request.method in ("GET", "HEAD"):
        alternate = _slash_alternate(request)
        if alternate is not None:
            return RedirectResponse(alternate, status_code=308)
    message = _text(request).get(HTTP_MESSAGES.get(error.status_code, HTTP_MESSAGES[400]))
    if is_api(request):
        return _json(message, error.status_code, dict(error.headers or {}))
    return error_page(request, error.status_code, headers=dict(error.headers or {}))


async def validation_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestValidationError)
    if is_api(request):
        translations = app_state(request).translations[request_language(request)]
        return _json(validation_message(error.errors(), translations), 422)
    return error_page(request, 422)


async def not_found(request: Request, error: Exception) -> Response:
    if is_api(request):
        if isinstance(error, UnknownQuestionError):
            return _json(_text(request).submission_error("unknown_question"), 422)
        return _json(_text(request).not_found(), 404)
    return error_page(request, 404)


async def already_answered(request: Request, error: Exception) -> Response:
    assert isinstance(error, AlreadyAnsweredError)
    text = _text(request)
    if is_api(request):
        conflict = AnswerConflictOut(detail=text.conflict("already_answered"), answer=answer_out(error.answer, text))
        return JSONResponse(conflict.model_dump(mode="json"), status_code=409, headers=PER_LEARNER)
    if wants_fragment(request):
        return _question(request, error, 409, notice=text.conflict("already_answered"))
    return _redirect(request, "attempt", f"#question-{error.question_id}", attempt_id=error.attempt.id)


async def attempt_closed(request: Request, error: Exception) -> Response:
    assert isinstance(error, AttemptClosedError)
    message = _text(request).conflict(error.code)
    if is_api(request):
        return _json(message, 409)
    if wants_fragment(request):
        return _question(request, error, 409, message=message)
    return _redirect(request, "attempt_result", attempt_id=error.attempt.id)


async def invalid_submission(request: Request, error: Exception) -> Response:
    assert isinstance(error, InvalidSubmissionError)
    drawn = error.attempt.question(error.question_id)
    message = _text(request).submission_error(error.code, drawn.unit if drawn else None)
    if is_api(request):
        return _json(message, 422)
    if wants_fragment(request):
        return _question(request, error, 422, message=message, typed=error.typed)
    # Without JavaScript, back to the question itself (POST-redirect-GET, as an accepted answer does): the
    # attempt page shows the message inside the question's block, which the anchor scrolls into view, and what
    # was typed back in its field (carried in the address: at most 80 characters, and the learner's own).
    query = {"question": error.question_id, "error": error.code} | ({"value": error.typed} if error.typed else {})
    where = urlencode(query)
    return _redirect(request, "attempt", f"?{where}#question-{error.question_id}", attempt_id=error.attempt.id)


async def rate_limited(request: Request, error: Exception) -> Response:
    assert isinstance(error, RateLimitedError)
    message = _text(request).rate_limited(error)
    headers = {"retry-after": str(error.retry_after_s)}
    if is_api(request):
        return _json(message, 429, headers)
    if error.attempt is not None and error.question_id is not None:
        question = QuestionError(error.attempt, error.question_id, "rate_limited")
        if wants_fragment(request):
            return _question(request, question, 429, message=message, headers=headers)
        return _attempt_page(request, question, 429, message, headers)
    if error.landing is not None:
        return app_state(request).templates.page(
            request,
            "quiz/landing.html",
            request_language(request),
            {"landing": error.landing, "message": message},
            status_code=429,
            headers=PER_LEARNER | headers,
        )
    return error_page(request, 429, message, headers)


async def database_unavailable(request: Request, error: Exception) -> Response:
    logger.warning("database unavailable on %s %s: %s", request.method, request.url.path, error.__cause__)
    message = _text(request).unavailable()
    headers = {"retry-after": str(RETRY_UNAVAILABLE_S)}
    if is_api(request):
        return _json(message, 503, headers)
    return error_page(request, 503, message, headers)


# --- certificates ---------------------------------------------------------------------------------------


def _certificate_text(request: Request) -> CertificateText:
    language = request_language(request)
    return CertificateText(app_state(request).translations[language], language)


async def certificate_not_found(request: Request, error: Exception) -> Response:
    """Malformed and unknown ids get the same answer (and the same bytes)."""
    message = _certificate_text(request).not_found()
    if is_api(request):
        return _json(message, 404)
    return error_page(request, 404, message)


async def certificate_rate_limited(request: Request, error: Exception) -> Response:
    assert isinstance(error, CertificateRateLimitedError)
    message = _certificate_text(request).rate_limited(error.retry_after_s)
    headers = {"retry-after": str(error.retry_after_s)}
    if is_api(request):
        return _json(message, 429, headers)
    return error_page(request, 429, message, headers)


def _claim_page(
    request: Request,
    status_code: int,
    *,
    claim: Claim | None = None,
    error: str | None = None,
    explanation: str | None = None,
    name: str = "",
    email: str = "",
) -> Response:
    state = app_state(request)
    context = {"claim": claim, "error": error, "explanation": explanation, "name": name, "email": email}
    return state.templates.page(
        request, "certificates/claim.html", request_language(request), context, status_code, PER_LEARNER
    )


async def not_eligible(request: Request, error: Exception) -> Response:
    """403 with the reason: only a learner who passed the final exam may claim."""
    assert isinstance(error, NotEligibleError)
    explanation = _certificate_text(request).not_eligible(error.reason)
    if is_api(request):
        return _json(explanation, 403)
    return _claim_page(request, 403, explanation=explanation)


async def invalid_name(request: Request, error: Exception) -> Response:
    assert isinstance(error, InvalidNameError)
    message = _certificate_text(request).name_problem(error.code)
    if is_api(request):
        return _json(message, 422)
    name, email = error.name[:200], (error.email or "")[:200]
    return _claim_page(request, 422, claim=error.claim, error=message, name=name, email=email)


async def artifact_unavailable(request: Request, error: Exception) -> Response:
    message = _certificate_text(request).unavailable()
    headers = {"retry-after": str(RETRY_UNAVAILABLE_S)}
    if is_api(request):
        return _json(message, 503, headers)
    return error_page(request, 503, message, headers)


# --- newsletter ---------------------------------------------------------------------------------------------


def _signup(request: Request, status_code: int, form: dict[str, object], headers: dict[str, str]) -> Response:
    """The form again with its message: the fragment for an HTMX swap, else the newsletter page."""
    template = "newsletter/_signup.html" if wants_fragment(request) else "newsletter/page.html"
    context = {"signup": form}
    return app_state(request).templates.page(
        request, template, request_language(request), context, status_code, PER_LEARNER | headers
    )


def _newsletter_text(request: Request) -> NewsletterText:
    language = request_language(request)
    return NewsletterText(app_state(request).translations[language], language)


async def invalid_address(request: Request, error: Exception) -> Response:
    assert isinstance(error, InvalidAddressError)
    message = _newsletter_text(request).invalid_address()
    form = signup_form(error.email[:300], error.language, error.source, error=message)
    return _signup(request, 422, form, {})


async def signup_rate_limited(request: Request, error: Exception) -> Response:
    assert isinstance(error, SignupRateLimitedError)
    message = _newsletter_text(request).rate_limited(error.retry_after_s)
    form = signup_form(error.email[:300], error.language, error.source, error=message)
    return _signup(request, 429, form, {"retry-after": str(error.retry_after_s)})


async def mail_unavailable(request: Request, error: Exception) -> Response:
    logger.warning("newsletter mail not sent: %s", error)
    form = signup_form(error=_newsletter_text(request).mail_unavailable())
    return _signup(request, 503, form, {"retry-after": str(RETRY_UNAVAILABLE_S)})


async def token_invalid(request: Request, error: Exception) -> Response:
    """Unknown links are 404, expired and used ones 410 (Gone); each page offers to sign up again."""
    assert isinstance(error, TokenInvalidError)
    language = request_language(request)
    context = {"message": _newsletter_text(request).token_problem(error.reason), "signup_source": "newsletter"}
    status_code = 404 if error.reason == "unknown" else 410
    return app_state(request).templates.page(
        request, "newsletter/token.html", language, context, status_code, LINK_HEADERS
    )


ExceptionView = Callable[[Request, Any], Coroutine[Any, Any, Response]]

EXCEPTION_VIEWS: dict[int | type[Exception], ExceptionView] = {
    HTTPException: http_error,
    RequestValidationError: validation_error,
    ChapterNotFoundError: not_found,
    QuizNotFoundError: not_found,
    AttemptNotFoundError: not_found,
    UnknownQuestionError: not_found,
    AlreadyAnsweredError: already_answered,
    AttemptClosedError: attempt_closed,
    InvalidSubmissionError: invalid_submission,
    RateLimitedError: rate_limited,
    DatabaseUnavailableError: database_unavailable,
    CertificateNotFoundError: certificate_not_found,
    StatusListNotFoundError: certificate_not_found,
    CertificateRateLimitedError: certificate_rate_limited,
    NotEligibleError: not_eligible,
    InvalidNameError: invalid_name,
    ArtifactUnavailableError: artifact_unavailable,
    InvalidAddressError: invalid_address,
    SignupRateLimitedError: signup_rate_limited,
    MailUnavailableError: mail_unavailable,
    TokenInvalidError: token_invalid,
}
