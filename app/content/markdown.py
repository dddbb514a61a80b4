"""Markdown to HTML for chapters: CommonMark, tables, footnotes, block attributes, containers, highlighting.

Raw HTML is off and table alignment becomes a class: the site's Content-Security-Policy forbids inline styles,
and content must not be able to inject markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.attrs import attrs_block_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.footnote.index import render_footnote_ref
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from app.content.models import DIAGRAM_NAMES, BodyPart, TocEntry
from app.content.termlinks import TermLinker
from app.content.typography import align_wide_characters, bind_units
from app.validation import KEBAB_ID_PATTERN

CALLOUT_KINDS: tuple[str, ...] = ("note", "tip", "warning")
DIAGRAM_MARKER = "\x00diagram:{name}\x00"
_DIAGRAM_SPLIT = re.compile("\x00diagram:([a-z-]+)\x00")
_SOURCES_MARKER = "\x00sources\x00"
# The id of the element that names every "↩" back to source N's citations; chapter.html renders one per source.
BACKREF_LABEL_ID = "backref-label-{number}"
_ALIGN_STYLE = re.compile(r"text-align:\s*(left|right|center)")
_UNKNOWN_CONTAINER = re.compile(r"^:::+\s*(\S+)?")
_ANCHOR = re.compile(KEBAB_ID_PATTERN)
_FORMATTER = HtmlFormatter(nowrap=True)
_SECTION_OPEN = "chapter_section_open"
_SECTION_CLOSE = "chapter_section_close"


@dataclass(slots=True)
class RenderedMarkdown:
    body: tuple[BodyPart, ...]
    sources_html: str
    toc: tuple[TocEntry, ...]
    footnote_labels: tuple[str, ...]
    text: str
    problems: list[tuple[int | None, str]] = field(default_factory=list)


def _highlight(code: str, language: str, _attrs: str) -> str:
    escaped_language = html.escape(language or "text")
    try:
        lexer = get_lexer_by_name(language or "text")
    except ClassNotFound:
        # Reported as a content problem by the validation pass; render as plain text meanwhile.
        return ""
    highlighted = align_wide_characters(highlight(code, lexer, _FORMATTER))
    # A block wider than a phone scrolls sideways, which a keyboard user can do only once it has the focus.
    return f'<pre class="highlight" tabindex="0"><code class="language-{escaped_language}">{highlighted}</code></pre>\n'


def _render_callout(kind: str) -> Callable[..., str]:
    def render(self: RendererHTML, tokens: Sequence[Token], index: int, _options: OptionsDict, _env: EnvType) -> str:
        token = tokens[index]
        if token.nesting != 1:
            return "</div>\n</aside>\n"
        title = token.info.strip()[len(kind) :].strip()
        heading = f'<p class="callout-title">{html.escape(bind_units(title))}</p>\n' if title else ""
        return f'<aside class="callout callout-{kind}">\n{heading}<div class="callout-body">\n'

    return render


def _render_diagram(
    self: RendererHTML, tokens: Sequence[Token], index: int, _options: OptionsDict, _env: EnvType
) -> str:
    token = tokens[index]
    if token.nesting != 1:
        return ""
    name = token.info.strip()[len("diagram") :].strip()
    return DIAGRAM_MARKER.format(name=name if name in DIAGRAM_NAMES else "unknown")


def _render_cell(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[index]
    style = token.attrs.pop("style", None)
    if isinstance(style, str) and (match := _ALIGN_STYLE.search(style)):
        token.attrJoin("class", f"align-{match.group(1)}")
    return self.renderToken(tokens, index, options, env)


def _render_table_open(
    self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType
) -> str:
    # A table wider than a phone scrolls inside its own region rather than widening the page. The region is a tab
    # stop (a keyboard user scrolls it with the arrow keys) named after the section the table sits in, so a screen
    # reader says what it holds; the stylesheet draws a shadow at the edge that has more columns behind it.
    label = html.escape(_heading_before(tokens, index) or "", quote=True)
    region = f'<div class="table-scroll" role="region" aria-label="{label}" tabindex="0">\n'
    return region + self.renderToken(tokens, index, options, env)


def _render_table_close(
    self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType
) -> str:
    return self.renderToken(tokens, index, options, env) + "</div>\n"


def _render_always(markup: str) -> Callable[..., str]:
    """A rule whose output is the same for every token (a section's or the source list's tags)."""

    def render(self: RendererHTML, tokens: Sequence[Token], index: int, _options: OptionsDict, _env: EnvType) -> str:
        return markup

    return render


def _render_footnote_caption(
    self: RendererHTML, tokens: Sequence[Token], index: int, _options: OptionsDict, _env: EnvType
) -> str:
    # "[3]" for every citation of source 3; the plugin's default "[3:1]" reads as a page reference.
    return f"[{tokens[index].meta['id'] + 1}]"


def _render_footnote_ref(
    self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType
) -> str:
    # A word joiner (U+2060) keeps a citation on the line of the word it follows: a line may otherwise break
    # between a Hangul syllable and "[", leaving "[18]" alone at the start of the next line.
    return "\u2060" + render_footnote_ref(self, tokens, index, options, env)


def _render_footnote_backref(
    self: RendererHTML, tokens: Sequence[Token], index: int, _options: OptionsDict, _env: EnvType
) -> str:
    # Each "↩" leads back to one citation of the source. A bare arrow is no name for a screen reader, but the name
    # ("Back to reference 3") is interface text in the reader's language, which Markdown rendering does not know:
    # the link takes it from an element the page renders with its translations (aria-labelledby may point at a
    # hidden element). The arrow is followed by U+FE0E so that iOS does not draw it as an emoji.
    meta = tokens[index].meta
    number = meta["id"] + 1
    anchor = f"fnref{number}" + (f":{meta['subId']}" if meta["subId"] > 0 else "")
    label_id = BACKREF_LABEL_ID.format(number=number)
    return f' <a href="#{anchor}" class="footnote-backref" aria-labelledby="{label_id}">\u21a9\ufe0e</a>'


def build_markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": False, "highlight": _highlight})
    md.enable("table")
    md.use(attrs_block_plugin)
    md.use(footnote_plugin)
    for kind in CALLOUT_KINDS:
        md.use(container_plugin, kind, render=_render_callout(kind))
    md.use(container_plugin, "diagram", render=_render_diagram)
    md.add_render_rule("footnote_caption", _render_footnote_caption)
    md.add_render_rule("footnote_ref", _render_footnote_ref)
    md.add_render_rule("footnote_anchor", _render_footnote_backref)
    # The generated footnotes are the chapter's source list; the page titles it in the reader's language.
    md.add_render_rule("footnote_block_open", _render_always(_SOURCES_MARKER + '<ol class="footnotes-list">\n'))
    md.add_render_rule("footnote_block_close", _render_always("</ol>\n"))
    for cell in ("th_open", "td_open"):
        md.add_render_rule(cell, _render_cell)
    md.add_render_rule("table_open", _render_table_open)
    md.add_render_rule("table_close", _render_table_close)
    md.add_render_rule(_SECTION_OPEN, _render_always('<section class="chapter-section">\n'))
    md.add_render_rule(_SECTION_CLOSE, _render_always("</section>\n"))
    return md


_MARKDOWN = build_markdown()


def render_markdown(
    source: str, internal_links: Mapping[str, bool] | None = None, terms: TermLinker | None = None
) -> RenderedMarkdown:
    """Render `source`; problems are returned with 0-based lines relative to `source`.

    `internal_links` maps each site path the text may link to onto whether that page is published; a link to an
    unpublished (planned) chapter is rendered as plain text until the chapter exists. `terms` links the first use
    of each glossary term (after the links are checked: its links are the glossary's, not the author's).
    """
    env: EnvType = {}
    tokens = _MARKDOWN.parse(source, env)
    problems: list[tuple[int | None, str]] = []
    _bind_units(tokens)
    toc = _collect_toc(tokens, problems)
    _check_blocks(tokens, problems)
    _resolve_internal_links(tokens, internal_links or {}, problems)
    if terms is not None:
        terms.link_first_uses(tokens)
    tokens = _wrap_sections(tokens)
    rendered = _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, env)
    main, _, sources_html = rendered.partition(_SOURCES_MARKER)
    parts = _split_diagrams(main)
    labels = tuple(env.get("footnotes", {}).get("refs", {}).keys())
    text = " ".join(
        child.content
        for token in tokens
        if token.type == "inline"
        for child in token.children or []
        if child.type == "text"
    )
    return RenderedMarkdown(
        body=parts,
        sources_html=sources_html,
        toc=toc,
        footnote_labels=tuple(label.lstrip(":") for label in labels),
        text=text,
        problems=problems,
    )


def _bind_units(tokens: Sequence[Token]) -> None:
    # Text nodes only: code spans, code blocks, link targets and attributes keep their characters.
    for token in tokens:
        for child in token.children or []:
            if child.type == "text":
                child.content = bind_units(child.content)


def _inline_text(inline: Token) -> str:
    return "".join(child.content for child in inline.children or [] if child.type in ("text", "code_inline"))


def _heading_before(tokens: Sequence[Token], index: int) -> str | None:
    """The text of the nearest heading above `tokens[index]`."""
    for position in range(index - 1, -1, -1):
        if tokens[position].type == "heading_open":
            return _inline_text(tokens[position + 1])
    return None


def _wrap_sections(tokens: list[Token]) -> list[Token]:
    """Each `##` section in a <section> of its own, up to the source list: the box the table of contents watches
    to mark the section being read (static/js/site.js)."""
    wrapped: list[Token] = []
    is_open = False
    for token in tokens:
        starts_section = token.type == "heading_open" and token.tag == "h2"
        if (starts_section or token.type == "footnote_block_open") and is_open:
            wrapped.append(Token(_SECTION_CLOSE, "section", -1, block=True))
            is_open = False
        if starts_section:
            wrapped.append(Token(_SECTION_OPEN, "section", 1, block=True))
            is_open = True
        wrapped.append(token)
    if is_open:
        wrapped.append(Token(_SECTION_CLOSE, "section", -1, block=True))
    return wrapped


def _collect_toc(tokens: Sequence[Token], problems: list[tuple[int | None, str]]) -> tuple[TocEntry, ...]:
    entries: list[TocEntry] = []
    seen: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.tag not in ("h2", "h3"):
            continue
        line = token.map[0] if token.map else None
        anchor = token.attrs.get("id")
        heading_text = _inline_text(tokens[index + 1])
        if not isinstance(anchor, str):
            problems.append((line, f"heading '{heading_text}' needs an id: put {{#some-id}} on the line above it"))
            continue
        # The {#id} line sits right above its heading.
        id_line = None if line is None else max(line - 1, 0)
        if not _ANCHOR.match(anchor):
            problems.append((id_line, f"heading id '{anchor}' must be lowercase kebab-case (a-z, 0-9, '-')"))
        if anchor in seen:
            problems.append((id_line, f"heading id '{anchor}' is used twice"))
        seen.add(anchor)
        entries.append(TocEntry(level=int(token.tag[1]), anchor=anchor, text=heading_text))
    return tuple(entries)


def _check_blocks(tokens: Sequence[Token], problems: list[tuple[int | None, str]]) -> None:
    for index, token in enumerate(tokens):
        line = token.map[0] if token.map else None
        if token.type == "container_diagram_open":
            name = token.info.strip()[len("diagram") :].strip()
            if name not in DIAGRAM_NAMES:
                known = ", ".join(sorted(DIAGRAM_NAMES))
                problems.append((line, f"unknown diagram '{name}' (known: {known})"))
        elif token.type == "table_open" and _heading_before(tokens, index) is None:
            problems.append((line, "a table needs a heading above it: the heading names the table's scrolling region"))
        elif token.type == "fence":
            language = token.info.strip().split(" ")[0]
            try:
                get_lexer_by_name(language or "text")
            except ClassNotFound:
                problems.append((line, f"unknown code block language '{language}'"))
        elif token.type == "inline" and index > 0 and tokens[index - 1].type == "paragraph_open":
            match = _UNKNOWN_CONTAINER.match(token.content)
            if match:
                name = match.group(1) or ""
                known = ", ".join((*CALLOUT_KINDS, "diagram"))
                problems.append((line, f"unknown directive '::: {name}' (known: {known})"))


def _resolve_internal_links(
    tokens: Sequence[Token], internal_links: Mapping[str, bool], problems: list[tuple[int | None, str]]
) -> None:
    for token in tokens:
        if token.type != "inline":
            continue
        line = token.map[0] if token.map else None
        open_links: list[Token] = []
        for child in token.children or []:
            if child.type == "link_open":
                href = str(child.attrs.get("href", ""))
                path = href.split("#", 1)[0]
                if href.startswith("/") and path not in internal_links:
                    known = ", ".join(sorted(internal_links))
                    problems.append((line, f"link to unknown page {href} (pages in this language: {known})"))
                elif href.startswith("/") and not internal_links[path]:
                    child.tag, child.attrs = "span", {"class": "planned-chapter-link"}
                    open_links.append(child)
                    continue
                open_links.append(child)
            elif child.type == "link_close" and open_links:
                opened = open_links.pop()
                if opened.tag == "span":
                    child.tag = "span"


def _split_diagrams(rendered: str) -> tuple[BodyPart, ...]:
    pieces = _DIAGRAM_SPLIT.split(rendered)
    parts: list[BodyPart] = []
    for position, piece in enumerate(pieces):
        if position % 2 == 1:
            parts.append(BodyPart(diagram=piece))
        elif piece.strip():
            parts.append(BodyPart(html=piece))
    return tuple(parts)
