"""Course pages: language negotiation at /, the course home (per learner), and chapters (shared)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.quiz.deadline import ZONE_COOKIE, deadline
from app.web.caching import RepresentationResponse
from app.web.deps import CertificateServiceDep, LanguageDep, PageDep, QuizServiceDep, StateDep
from app.web.i18n import preferred_language
from app.web.templating.urls import url_path

router = APIRouter(include_in_schema=False)


@router.get("/", name="root")
async def root(request: Request) -> RedirectResponse:
    home = url_path(request, "home", lang=preferred_language(request))
    return RedirectResponse(home, status_code=303, headers={"vary": "Cookie, Accept-Language"})


@router.get("/{lang}/", name="home")
async def home(page: PageDep, quiz: QuizServiceDep, certificates: CertificateServiceDep) -> Response:
    progress = await quiz.progress(page.context, page.state.course.published_slugs)
    certificate = await certificates.current(page.context) if progress.exam_passed else None
    zone = page.request.cookies.get(ZONE_COOKIE)
    deadlines = {
        attempt.quiz_id: deadline(attempt.deadline_at, page.context.now, zone) for attempt in progress.open_attempts
    }
    return page.render(
        "home.html", progress=progress, quizzes=quiz.catalog, certificate=certificate, deadlines=deadlines
    )


@router.get("/{lang}/guides/{slug}", name="chapter")
async def chapter(request: Request, lang: LanguageDep, slug: str, state: StateDep) -> Response:
    chapter = state.course.require(slug)
    previous, following = state.course.neighbours(chapter.slug)
    context = {
        "chapter": chapter,
        "page": chapter.pages[lang],
        "previous": previous,
        "following": following,
        "quiz": state.quiz.catalog.chapter_quiz(chapter.slug),
    }
    return RepresentationResponse(state.diagrams.shared_page(request, "chapter.html", lang, context))
