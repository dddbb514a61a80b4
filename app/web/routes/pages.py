"""Course pages: language negotiation at /, the course home, and chapters."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.quiz import service
from app.web.deps import LanguageDep, StateDep, app_state, require_chapter, require_language
from app.web.i18n import LANGUAGE_COOKIE, negotiate_language
from app.web.identity import learner_identity

router = APIRouter()


@router.get("/", name="root", include_in_schema=False)
async def root(request: Request) -> RedirectResponse:
    language = negotiate_language(request.cookies.get(LANGUAGE_COOKIE), request.headers.get("accept-language"))
    response = RedirectResponse(request.app.url_path_for("home", lang=language), status_code=303)
    response.headers["vary"] = "Cookie, Accept-Language"
    return response


@router.get("/{lang}/", name="home", include_in_schema=False)
def home(request: Request, lang: LanguageDep, state: StateDep) -> Response:
    # Per learner (quiz progress), so rendered per request; a plain `def` keeps the database read off the loop.
    identity = learner_identity(request)
    learner_id = identity.learner_id  # mints an id for a new visitor, who has no attempts: skip the query
    progress = service.Progress({}, 0)
    if not identity.minted:
        with state.database.read_session() as session:
            progress = service.course_progress(
                session, state.quizzes, learner_id, [chapter.slug for chapter in state.course.published]
            )
    return state.templates.render(
        request,
        "home.html",
        lang,
        {
            "progress": progress,
            "best_scores": progress.best_scores,
            "quizzes": state.quizzes,
            "overall_progress": progress.overall_percent,
        },
        headers={"cache-control": "no-store"},
    )


@router.get("/{lang}/guides/{slug}", name="chapter", include_in_schema=False)
async def chapter(request: Request, lang: str, slug: str) -> Response:
    language = require_language(lang)
    state = app_state(request)
    chapter = require_chapter(state, slug)
    previous, following = state.course.neighbours(chapter.slug)
    return state.templates.render_shared(
        request,
        "chapter.html",
        language,
        {
            "chapter": chapter,
            "page": chapter.pages[language],
            "previous": previous,
            "following": following,
            "quiz": state.quizzes.chapter_quiz(chapter.slug),
        },
    )
