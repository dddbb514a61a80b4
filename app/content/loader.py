"""Loads content/: validates everything, renders it once, and reports every problem with file and line.

The rendered course can be kept on disk (`cache_dir`, under VAR_DIR): rendering the Markdown, linking terms and
checking figures is most of a worker's start-up, and every worker of every restart did it again for the same
bytes. The file is named by a digest of everything the result depends on (each content file, the source of the
app package, which renders it, and the versions of the libraries that parse and highlight), so an edit to either
content or code is a new file, never a stale course.
"""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import re
import sys
from collections.abc import Callable, Mapping
from datetime import date
from importlib import metadata
from pathlib import Path

from pydantic import Field, HttpUrl, field_validator

from app.content.errors import ContentError, ContentProblem
from app.content.figures import FigureResolver, simulator_figure, substitute_figures
from app.content.frontmatter import ContentProblemsError, line_of, parse_yaml, split_front_matter
from app.content.glossary import Glossary, load_glossary, reference_problems
from app.content.linkfigures import contradicting_rates
from app.content.markdown import render_markdown
from app.content.models import Chapter, ChapterPage, Course, FaqEntry, Source
from app.content.sections import faq_problem, section_problems
from app.content.terminology import check_terms
from app.content.termlinks import TermLinker
from app.content.typography import bind_units
from app.i18n import LANGUAGES
from app.validation import KEBAB_ID_PATTERN, StrictModel

_CITATION = re.compile(r"\[\^([^\]\s]+)\](:?)")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
WORDS_PER_MINUTE = 230
HANGUL_SYLLABLES_PER_MINUTE = 500


class LocalizedText(StrictModel):
    en: str = Field(min_length=1)
    ko: str = Field(min_length=1)


class CourseChapterModel(StrictModel):
    slug: str = Field(pattern=KEBAB_ID_PATTERN)
    title: LocalizedText
    planned: bool = False


class CourseModel(StrictModel):
    title: LocalizedText
    description: LocalizedText
    chapters: list[CourseChapterModel] = Field(min_length=1)


class SourceModel(StrictModel):
    id: str = Field(pattern=KEBAB_ID_PATTERN)
    title: str = Field(min_length=1)
    url: HttpUrl

    @field_validator("url")
    @classmethod
    def _https_only(cls, value: HttpUrl) -> HttpUrl:
        if value.scheme != "https":
            raise ValueError("source URLs must use https")
        return value


class FaqModel(StrictModel):
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)


class FrontMatterModel(StrictModel):
    title: str = Field(min_length=1)
    summary: str = Field(min_length=1)
    updated: date
    sources: list[SourceModel] = Field(min_length=1)
    faq: list[FaqModel] = Field(default_factory=list)


class _Collector:
    def __init__(self) -> None:
        self.problems: list[ContentProblem] = []

    def add(self, path: Path, line: int | None, message: str) -> None:
        self.problems.append(ContentProblem(path, line, message))

    def extend(self, problems: list[ContentProblem]) -> None:
        self.problems.extend(problems)


APP_PACKAGE = Path(__file__).resolve().parent.parent
# The libraries whose output is part of the rendered course (parsing, Markdown, highlighting, validation).
RENDERING_LIBRARIES = ("pyyaml", "markdown-it-py", "mdit-py-plugins", "pygments", "pydantic", "babel")
CACHE_PREFIX = "course-"


def load_course(
    content_dir: Path, resolve_figure: FigureResolver = simulator_figure, cache_dir: Path | None = None
) -> Course:
    """Load and render the whole course, or raise ContentError listing every problem.

    With `cache_dir`, a course rendered before from the same content and code is read back instead (a course
    with problems is never kept, so its errors are reported on every start)."""
    if cache_dir is None or resolve_figure is not simulator_figure:
        return _render_course(content_dir, resolve_figure)
    path = cache_dir / f"{CACHE_PREFIX}{course_digest(content_dir)}.pickle"
    try:
        # The file is ours: VAR_DIR holds the secrets too, and whoever can write there is already the app.
        cached = pickle.loads(path.read_bytes())  # noqa: S301
    except Exception:  # none yet, or a torn or foreign file: render again and replace it
        cached = None
    if isinstance(cached, Course):
        return cached
    course = _render_course(content_dir, resolve_figure)
    _keep(path, pickle.dumps(course, protocol=pickle.HIGHEST_PROTOCOL))
    return course


def course_digest(content_dir: Path) -> str:
    """SHA-256 over every content file, every module of the app package and the rendering libraries' versions."""
    digest = hashlib.sha256(sys.version.encode())
    for library in RENDERING_LIBRARIES:
        digest.update(f"\0{library}={metadata.version(library)}".encode())
    for root, pattern in ((content_dir, "*"), (APP_PACKAGE, "*.py")):
        for file in sorted(root.rglob(pattern)):
            if file.is_file():
                digest.update(f"\0{file.relative_to(root).as_posix()}\0".encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()


def _keep(path: Path, data: bytes) -> None:
    """Write the new file whole (another worker may be reading) and drop the ones older content left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_bytes(data)
    os.replace(partial, path)
    for old in path.parent.glob(f"{CACHE_PREFIX}*.pickle"):
        if old != path:
            old.unlink(missing_ok=True)


def _render_course(content_dir: Path, resolve_figure: FigureResolver) -> Course:
    collector = _Collector()
    course_path = content_dir / "course.yaml"
    if not course_path.is_file():
        raise ContentError([ContentProblem(course_path, None, "course.yaml is missing")], content_dir)
    try:
        course_model, course_node = parse_yaml(course_path, course_path.read_text("utf-8"), CourseModel)
    except ContentProblemsError as raised:
        raise ContentError(raised.problems, content_dir) from None

    glossary_source = load_glossary(content_dir)
    collector.extend(list(glossary_source.problems))
    linkers = {language: _term_linker(glossary_source.glossary, language) for language in LANGUAGES}
    published = {entry.slug: not entry.planned for entry in course_model.chapters}
    chapters: list[Chapter] = []
    seen: set[str] = set()
    for index, entry in enumerate(course_model.chapters):
        line = line_of(course_node, ("chapters", index, "slug"))
        if entry.slug in seen:
            collector.add(course_path, _one_based(line), f"duplicate chapter slug '{entry.slug}'")
            continue
        seen.add(entry.slug)
        chapter_dir = content_dir / "guides" / entry.slug
        titles = _bound(entry.title.model_dump())
        if entry.planned:
            if chapter_dir.exists():
                collector.add(
                    course_path,
                    _one_based(line),
                    f"chapter '{entry.slug}' is marked planned but guides/{entry.slug}/ exists",
                )
            chapters.append(Chapter(slug=entry.slug, titles=titles, pages={}))
            continue
        pages = _load_chapter(chapter_dir, entry.slug, resolve_figure, published, linkers, collector)
        if pages is not None:
            chapters.append(Chapter(slug=entry.slug, titles=titles, pages=pages))

    guides_dir = content_dir / "guides"
    if guides_dir.is_dir():
        for directory in sorted(path for path in guides_dir.iterdir() if path.is_dir()):
            if directory.name not in seen:
                collector.add(directory, None, f"guides/{directory.name}/ is not listed in course.yaml")

    course = Course(
        titles=_bound(course_model.title.model_dump()),
        descriptions=_bound(course_model.description.model_dump()),
        chapters=tuple(chapters),
        glossary=glossary_source.glossary,
    )
    collector.extend(reference_problems(glossary_source, course))
    collector.extend(list(check_terms(content_dir).problems))
    if collector.problems:
        raise ContentError(collector.problems, content_dir)
    return course


def _term_linker(glossary: Glossary, language: str) -> TermLinker | None:
    spellings = [(entry.id, spelling) for entry in glossary.entries for spelling in entry.spellings(language)]
    # The address of an entry on the glossary page (app/web/routes/glossary.py serves /{lang}/glossary).
    return TermLinker.build(spellings, f"/{language}/glossary#term-")


def _bound(texts: dict[str, str]) -> dict[str, str]:
    return {language: bind_units(text) for language, text in texts.items()}


def _one_based(line: int) -> int:
    return line + 1


def _load_chapter(
    chapter_dir: Path,
    slug: str,
    resolve_figure: FigureResolver,
    published: Mapping[str, bool],
    linkers: Mapping[str, TermLinker | None],
    collector: _Collector,
) -> dict[str, ChapterPage] | None:
    pages: dict[str, ChapterPage] = {}
    for language in LANGUAGES:
        path = chapter_dir / f"{language}.md"
        if not path.is_file():
            collector.add(path, None, f"missing translation: guides/{slug}/{language}.md does not exist")
            continue
        links = {f"/{language}/": True} | {
            f"/{language}/guides/{other}": is_published for other, is_published in published.items()
        }
        page = _load_page(path, slug, language, resolve_figure, links, linkers.get(language), collector)
        if page is not None:
            pages[language] = page
    if len(pages) != len(LANGUAGES):
        return None
    _check_parity(chapter_dir, pages, collector)
    return pages


def _load_page(
    path: Path,
    slug: str,
    language: str,
    resolve_figure: FigureResolver,
    internal_links: Mapping[str, bool],
    terms: TermLinker | None,
    collector: _Collector,
) -> ChapterPage | None:
    before = len(collector.problems)
    try:
        document = split_front_matter(path, path.read_text("utf-8"))
        front, front_node = parse_yaml(
            path, document.front_matter, FrontMatterModel, first_line=document.front_matter_first_line
        )
    except ContentProblemsError as raised:
        collector.extend(raised.problems)
        return None

    def at_body_line(relative: int | None) -> int | None:
        return None if relative is None else document.body_first_line + relative

    body = substitute_figures(
        document.body,
        language,
        resolve_figure,
        lambda relative, message: collector.add(path, at_body_line(relative), message),
    )
    source_ids = [source.id for source in front.sources]
    cited = _check_citations(path, body, source_ids, at_body_line, collector)
    for index, source in enumerate(front.sources):
        source_line = line_of(front_node, ("sources", index, "id"))
        if source.id not in cited:
            collector.add(
                path,
                document.front_matter_first_line + source_line,
                f"source '{source.id}' is never cited (cite it as [^{source.id}])",
            )
        if source_ids.count(source.id) > 1 and source_ids.index(source.id) != index:
            collector.add(
                path, document.front_matter_first_line + source_line, f"source id '{source.id}' is used twice"
            )

    definitions = "".join(f"\n[^{source.id}]: [{source.title}]({source.url})\n" for source in front.sources)
    rendered = render_markdown(body + "\n" + definitions, internal_links, terms)
    for relative, message in rendered.problems:
        collector.add(path, at_body_line(relative), message)
    for relative, message in section_problems(rendered.toc, document.body):
        collector.add(path, at_body_line(relative), message)
    faq = faq_problem(len(front.faq))
    if faq is not None:
        collector.add(path, document.front_matter_first_line + line_of(front_node, ("faq",)), faq)
    for relative, message in contradicting_rates(document.body):
        collector.add(path, at_body_line(relative), message)
    diagrams = [part.diagram for part in rendered.body if part.diagram is not None]
    for name in sorted({name for name in diagrams if diagrams.count(name) > 1}):
        # Each diagram's form and chart have fixed ids; a second copy on the same page would duplicate them.
        collector.add(path, None, f"diagram '{name}' appears more than once; a page can show each diagram once")
    if len(collector.problems) > before:
        return None
    return ChapterPage(
        slug=slug,
        language=language,
        title=bind_units(front.title),
        summary=bind_units(front.summary),
        updated=front.updated,
        body=rendered.body,
        sources_html=rendered.sources_html,
        toc=rendered.toc,
        sources=tuple(Source(id=s.id, title=s.title, url=str(s.url)) for s in front.sources),
        faq=tuple(FaqEntry(question=bind_units(f.question), answer=bind_units(f.answer)) for f in front.faq),
        reading_minutes=reading_minutes(rendered.text),
        text=rendered.text,
    )


def _check_citations(
    path: Path,
    body: str,
    source_ids: list[str],
    at_body_line: Callable[[int | None], int | None],
    collector: _Collector,
) -> set[str]:
    cited: set[str] = set()
    for index, line in enumerate(body.split("\n")):
        for match in _CITATION.finditer(line):
            label, is_definition = match.group(1), bool(match.group(2))
            if is_definition and match.start() == 0:
                collector.add(
                    path,
                    at_body_line(index),
                    f"footnote definition [^{label}]: list sources in the front matter instead",
                )
            elif label not in source_ids:
                collector.add(
                    path, at_body_line(index), f"citation [^{label}] names no source (known: {', '.join(source_ids)})"
                )
            else:
                cited.add(label)
    return cited


def _check_parity(chapter_dir: Path, pages: dict[str, ChapterPage], collector: _Collector) -> None:
    reference = pages[LANGUAGES[0]]
    for language in LANGUAGES[1:]:
        page = pages[language]
        path = chapter_dir / f"{language}.md"
        missing = [anchor for anchor in (e.anchor for e in reference.toc) if anchor not in page.anchors]
        extra = [anchor for anchor in (e.anchor for e in page.toc) if anchor not in reference.anchors]
        if missing:
            collector.add(path, None, f"sections missing compared with {LANGUAGES[0]}.md: {', '.join(missing)}")
        if extra:
            collector.add(path, None, f"sections not in {LANGUAGES[0]}.md: {', '.join(extra)}")
        if page.diagrams != reference.diagrams:
            collector.add(
                path, None, f"diagrams {list(page.diagrams)} differ from {LANGUAGES[0]}.md's {list(reference.diagrams)}"
            )
        # Both languages cite the same documents: same ids, same addresses (titles may be translated).
        if {(s.id, s.url) for s in page.sources} != {(s.id, s.url) for s in reference.sources}:
            theirs = {s.id: s.url for s in reference.sources}
            differing = sorted(s.id for s in page.sources if theirs.get(s.id) != s.url)
            missing = sorted(set(theirs) - {s.id for s in page.sources})
            collector.add(
                path,
                None,
                f"sources differ from {LANGUAGES[0]}.md's (differing or extra: {', '.join(differing) or 'none'}; "
                f"missing: {', '.join(missing) or 'none'})",
            )


def reading_minutes(text: str) -> int:
    hangul = len(_HANGUL.findall(text))
    other_words = sum(1 for word in text.split() if not _HANGUL.search(word))
    minutes = hangul / HANGUL_SYLLABLES_PER_MINUTE + other_words / WORDS_PER_MINUTE
    return max(1, math.ceil(minutes))
