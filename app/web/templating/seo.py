"""Structured data for search engines: JSON-LD blocks that no text inside can break out of."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from markupsafe import Markup

from app.content import Course
from app.content.glossary import Glossary
from app.content.models import FaqEntry
from app.i18n import LANGUAGES


def json_ld(data: Mapping[str, Any]) -> Markup:
    """JSON for a <script type="application/ld+json"> block; '<' is escaped so no '</script>' can end it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return Markup(text)  # noqa: S704  (escaped above; JSON inside a data block, never executed)


def faq_entity(entry: FaqEntry) -> dict[str, Any]:
    """A schema.org Question for FAQPage JSON-LD."""
    return {"@type": "Question", "name": entry.question, "acceptedAnswer": {"@type": "Answer", "text": entry.answer}}


def defined_term_set(glossary: Glossary, language: str, page_url: str, name: str) -> dict[str, Any]:
    """schema.org DefinedTermSet JSON-LD for the glossary page: each term with its definition and address."""
    return {
        "@context": "https://schema.org",
        "@type": "DefinedTermSet",
        "@id": page_url,
        "name": name,
        "inLanguage": language,
        "url": page_url,
        "hasDefinedTerm": [
            {
                "@type": "DefinedTerm",
                "@id": f"{page_url}#{entry.anchor}",
                "termCode": entry.id,
                "name": entry.terms[language],
                "description": entry.definitions[language],
                "url": f"{page_url}#{entry.anchor}",
                "inDefinedTermSet": page_url,
                **({"alternateName": list(entry.aliases[language])} if entry.aliases[language] else {}),
            }
            for entry in glossary.ordered(language)
        ],
    }


def sitemap_xml(course: Course, base_url: str, url: Callable[..., str]) -> str:
    """The sitemap: home, lab, glossary and every published chapter, each language with its hreflang alternates."""
    pages: list[tuple[dict[str, str], str | None]] = [
        ({lang: url(name, lang=lang) for lang in LANGUAGES}, None) for name in ("home", "lab", "glossary")
    ]
    for chapter in course.published:
        paths = {lang: url("chapter", lang=lang, slug=chapter.slug) for lang in LANGUAGES}
        pages.append((paths, max(page.updated for page in chapter.pages.values()).isoformat()))
    entries: list[str] = []
    for paths, updated in pages:
        alternates = "".join(
            f'<xhtml:link rel="alternate" hreflang="{language}" href={quoteattr(base_url + path)}/>'
            for language, path in paths.items()
        )
        lastmod = f"<lastmod>{updated}</lastmod>" if updated else ""
        entries.extend(
            f"<url><loc>{escape(base_url + path)}</loc>{lastmod}{alternates}</url>" for path in paths.values()
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n' + "\n".join(entries) + "\n</urlset>\n"
    )
