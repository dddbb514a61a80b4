"""The newsletter: the sign-up form's page and its POST, the confirmation link (a page with a button: a mail
scanner's GET confirms nothing) and the unsubscribe link (RFC 8058 one-click).

The sign-up form is also on shared pages (the course home, every chapter): a plain form posting here, no token in
it, so those pages stay the same bytes for everyone; the cross-origin guard protects the POST. The one-click
unsubscribe is the exception: a mail provider's server POSTs it without cookies, and the unguessable token in the
URL is the authority, so it has no cross-origin guard (a forged request would need the token it spends). Refusals
are the service's domain errors, answered by app.web.exceptions.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from starlette.responses import Response

from app.web.deps import NO_STORE, ContextDep, NewsletterServiceDep, StateDep, refuse_cross_origin
from app.web.htmx import wants_fragment
from app.web.i18n import request_language

router = APIRouter(include_in_schema=False, dependencies=[Depends(refuse_cross_origin)])
one_click_router = APIRouter(include_in_schema=False)

MAX_FIELD = 1000
# Link pages: nobody's but the link holder's, and never indexed. The site's Referrer-Policy (same-origin) already
# keeps the token out of Referer headers to other sites; `no-referrer` would make browsers send `Origin: null` with
# the page's own confirm button, which the cross-origin guard refuses (Chromium does).
LINK_HEADERS = NO_STORE | {"x-robots-tag": "noindex"}


def signup_form(email: str = "", language: str = "", source: str = "newsletter", **extra: object) -> dict[str, object]:
    return {"email": email, "language": language, "source": source, "error": None, "done": False} | extra


@router.get("/newsletter", name="newsletter")
async def newsletter_page(request: Request, state: StateDep) -> Response:
    language = request_language(request)
    context: dict[str, object] = {"signup": signup_form(language=language), "switch": ("newsletter", {})}
    return state.templates.page(request, "newsletter/page.html", language, context, headers=NO_STORE)


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
    return state.templates.page(request, template, context.language, {"signup": form}, headers=NO_STORE)


@router.get("/newsletter/confirm/{token}", name="newsletter_confirm")
async def confirm_page(request: Request, token: str, state: StateDep, newsletter: NewsletterServiceDep) -> Response:
    subscription = await newsletter.confirmation(token, state.clock())
    context = {"subscription": subscription, "token": token, "done": False}
    language = subscription.language
    return state.templates.page(request, "newsletter/confirm.html", language, context, headers=LINK_HEADERS)


@router.post("/newsletter/confirm/{token}", name="newsletter_confirm_post")
async def confirm(request: Request, token: str, state: StateDep, newsletter: NewsletterServiceDep) -> Response:
    subscription = await newsletter.confirm(token, state.clock())
    context = {"subscription": subscription, "token": token, "done": True}
    language = subscription.language
    return state.templates.page(request, "newsletter/confirm.html", language, context, headers=LINK_HEADERS)


@one_click_router.get("/newsletter/unsubscribe/{token}", name="newsletter_unsubscribe")
async def unsubscribe_page(request: Request, token: str, state: StateDep, newsletter: NewsletterServiceDep) -> Response:
    subscription = await newsletter.unsubscription(token)
    context = {"subscription": subscription, "token": token, "done": subscription.status == "unsubscribed"}
    language = subscription.language
    return state.templates.page(request, "newsletter/unsubscribe.html", language, context, headers=LINK_HEADERS)


@one_click_router.post("/newsletter/unsubscribe/{token}", name="newsletter_unsubscribe_post")
async def unsubscribe(request: Request, token: str, state: StateDep, newsletter: NewsletterServiceDep) -> Response:
    """The one-click POST (body `List-Unsubscribe=One-Click`, read by nobody) and the page's button alike."""
    subscription = await newsletter.unsubscribe(token, state.clock())
    context = {"subscription": subscription, "token": token, "done": True}
    language = subscription.language
    return state.templates.page(request, "newsletter/unsubscribe.html", language, context, headers=LINK_HEADERS)
