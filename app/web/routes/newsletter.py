"""The newsletter: the sign-up form's page and its POST, the confirmation link (a page with a button: a mail
scanner's GET confirms nothing) and the unsubscribe link (RFC 8058 one-click).

The sign-up form is also on shared pages (the course home, every chapter): a plain form posting here, no token in
it, so those pages stay the same bytes for everyone; the cross-origin guard protects the POST. The one-click
unsubscribe is the exception: a mail provider's server POSTs it without cookies, and the unguessable token in the
URL is the authority, so it is `@allow_cross_site` (a forged request would need the token it spends). Refusals
are the service's domain errors, answered by app.web.exceptions.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from app.newsletter.readmodels import Subscription
from app.web.cache_policy import PER_LEARNER
from app.web.deps import ContextDep, NewsletterServiceDep, StateDep
from app.web.htmx import wants_fragment
from app.web.i18n import request_language
from app.web.middleware.security import allow_cross_site
from app.web.state import AppState

router = APIRouter(include_in_schema=False)
one_click_router = APIRouter(include_in_schema=False)

MAX_FIELD = 1000
# Link pages: nobody's but the link holder's, and never indexed. The site's Referrer-Policy (same-origin) already
# keeps the token out of Referer headers to other sites; `no-referrer` would make browsers send `Origin: null` with
# the page's own confirm button, which the cross-origin guard refuses (Chromium does).
LINK_HEADERS = PER_LEARNER | {"x-robots-tag": "noindex"}


def signup_form(email: str = "", language: str = "", source: str = "newsletter", **extra: object) -> dict[str, object]:
    return {"email": email, "language": language, "source": source, "error": None, "done": False} | extra


@router.get("/newsletter", name="newsletter")
async def newsletter_page(request: Request, state: StateDep) -> Response:
    language = request_language(request)
    context: dict[str, object] = {"signup": signup_form(language=language), "switch": ("newsletter", {})}
    return state.templates.page(request, "newsletter/page.html", language, context, headers=PER_LEARNER)


@router.post("/newsletter", name="newsletter_signup")
async def signup(
    request: Request,
    state: StateDep,
    context: ContextDep,
    newsletter: NewsletterServiceDep,
    email: Annotated[str, Form(max_length=MAX_FIELD)] = "",
    language: Annotated[str, Form(max_length=8)] = "",
    source: Annotated[str, Form(max_length=100)] = "newsletter",
) -> Response:
    await newsletter.subscribe(context, email, language, source)
    form = signup_form(language=language, source=source, done=True)
    template = "newsletter/_signup.html" if wants_fragment(request) else "newsletter/page.html"
    return state.templates.page(request, template, context.language, {"signup": form}, headers=PER_LEARNER)


def _link_page(
    request: Request, state: AppState, template: str, subscription: Subscription, token: str, done: bool
) -> Response:
    """A page that a mailed link opens, in the language the subscriber signed up in."""
    context = {"subscription": subscription, "token": token, "done": done}
    return state.templates.page(request, template, subscription.language, context, headers=LINK_HEADERS)


@router.get("/newsletter/confirm/{token}", name="newsletter_confirm")
async def confirm_page(request: Request, token: str, state: StateDep, newsletter: NewsletterServiceDep) -> Response:
    subscription = await newsletter.confirmation(token, state.clock())
    return _link_page(request, state, "newsletter/confirm.html", subscription, token, done=False)


@router.post("/newsletter/confirm/{token}", name="newsletter_confirm_post")
async def confirm(request: Request, token: str, state: StateDep, newsletter: NewsletterServiceDep) -> Response:
    subscription = await newsletter.confirm(token, state.clock())
    return _link_page(request, state, "newsletter/confirm.html", subscription, token, done=True)


@one_click_router.get("/newsletter/unsubscribe/{token}", name="newsletter_unsubscribe")
async def unsubscribe_page(request: Request, token: str, state: StateDep, newsletter: NewsletterServiceDep) -> Response:
    subscription = await newsletter.unsubscription(token)
    return _link_page(
        request, state, "newsletter/unsubscribe.html", subscription, token, done=subscription.status == "unsubscribed"
    )


@one_click_router.post("/newsletter/unsubscribe/{token}", name="newsletter_unsubscribe_post")
@allow_cross_site
async def unsubscribe(request: Request, token: str, state: StateDep, newsletter: NewsletterServiceDep) -> Response:
    """The one-click POST (body `List-Unsubscribe=One-Click`, read by nobody) and the page's button alike."""
    subscription = await newsletter.unsubscribe(token, state.clock())
    return _link_page(request, state, "newsletter/unsubscribe.html", subscription, token, done=True)
