"""Course content: loaded from content/, validated, rendered once at start-up and served from memory."""

from app.content.errors import ContentError, ContentProblem
from app.content.loader import load_course
from app.content.models import Chapter, ChapterPage, Course

__all__ = ["Chapter", "ChapterPage", "ContentError", "ContentProblem", "Course", "load_course"]
