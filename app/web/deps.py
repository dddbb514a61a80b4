"""What routes receive: the app state, the page's language, the request context and the services, as
`Annotated` dependency aliases (the full-stack-fastapi-template habit). The cross-origin guard is not one of them:
it is app.web.middleware.security, for every route."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request, status
from starlette.requests import HTTPConnection
from starlette.responses import HTMLResponse, Response

from app.certificates.service import CertificateService
from app.context import RequestContext
from app.i18n import LANGUAGES
from app.newsletter.service import NewsletterService
from app.quiz.service import QuizService
from app.ratelimit import client_network
from app.web import cache_policy
from app.web.cache_policy import PER_LEARNER
from app.web.i18n import request_language
from app.web.middleware.identity import learner_identity
from app.web.state import AppState, app_state

NO_STORE = PER_LEARNER  # the name app/web/routes/certificates.py imports

# The dependencies are coroutines although none of them waits: FastAPI runs a plain function dependency in a
# worker thread, a hand-off that cost more than the rest of a dependency's work (a dozen per quiz answer).


def client_of(connection: HTTPConnection) -> str:
    """The key of the client's network for per-address limits (IPv4 /32, IPv6 /64; see ratelimit)."""
    return client_network(connection.client.host) if connection.client else "unknown"


def request_context(request: Request, language: str | None = None) -> RequestContext:
    state = app_state(request)
    identity = learner_identity(request)
    return RequestContext(
        learner_id=identity.learner_id,
        returning=identity.known_id is not None,
        language=language or request_language(request),
        client=client_of(request),
        now=state.clock(),
    )


async def _language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND)
    return lang


class Page:
    """A per-learner page in the language of its path: its request context and how to render it."""

    def __init__(self, request: Request, language: str) -> None:
        self.request = request
        self.language = language
        self.state = app_state(request)

    @property
    def context(self) -> RequestContext:
        return request_context(self.request, self.language)

    def render(self, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        return self.state.templates.page(self.request, template, self.language, context, status_code, PER_LEARNER)


async def _page(request: Request, lang: Annotated[str, Depends(_language)]) -> Page:
    return Page(request, lang)


async def _state(request: Request) -> AppState:
    return app_state(request)


async def _context(request: Request) -> RequestContext:
    return request_context(request)


async def _quiz_service(request: Request) -> QuizService:
    return app_state(request).quiz


async def _certificate_service(request: Request) -> CertificateService:
    return app_state(request).certificates


async def _newsletter_service(request: Request) -> NewsletterService:
    return app_state(request).newsletter


StateDep = Annotated[AppState, Depends(_state)]
LanguageDep = Annotated[str, Depends(_language)]
PageDep = Annotated[Page, Depends(_page)]
ContextDep = Annotated[RequestContext, Depends(_context)]
QuizServiceDep = Annotated[QuizService, Depends(_quiz_service)]
CertificateServiceDep = Annotated[CertificateService, Depends(_certificate_service)]
NewsletterServiceDep = Annotated[NewsletterService, Depends(_newsletter_service)]


async def no_store(response: Response) -> None:
    """For routers whose every answer is per learner: no cache may keep it."""
    cache_policy.apply(response, cache_policy.NO_STORE)
