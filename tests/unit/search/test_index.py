"""Search over the real course and over small indexes: what is found, in which order, and what a bad query gets."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from app.config import PROJECT_ROOT
from app.content import Course, load_course
from app.i18n import LANGUAGES
from app.search import CourseSearch, Document, SearchIndex, parse_query
from app.search.documents import course_documents, plain_text
from app.search.text import MAX_QUERY_CHARACTERS, document_terms, stem

TITLES = {"en": "Glossary", "ko": "용어집"}


@pytest.fixture(scope="module")
def course() -> Course:
    return load_course(PROJECT_ROOT / "content")


@pytest.fixture(scope="module")
def search(course: Course) -> CourseSearch:
    return CourseSearch(course, TITLES)


def chapters_of(search: CourseSearch, language: str, query: str) -> list[str | None]:
    hits = search.search(language, query).results.hits
    return [hit.document.chapter for hit in hits if hit.document.kind != "glossary"]


def words_only_in(course: Course, language: str, slug: str) -> list[str]:
    """Words of chapter `slug` that occur nowhere else: in no other chapter, FAQ or glossary entry, not even as
    part of a longer word or across a space (the index finds both)."""
    pattern = r"[\uac00-\ud7a3]{4,}" if language == "ko" else r"\b[a-z]{7,}\b"
    texts: dict[str, list[str]] = {}
    for document in course_documents(course, language, TITLES[language]):
        owner = document.chapter or "glossary"
        texts.setdefault(owner, []).append(f"{document.title} {document.text} {document.keywords}".lower())
    joined = {owner: " ".join(parts) for owner, parts in texts.items()}
    others = [text + " " + re.sub(r"\s+", "", text) for owner, text in joined.items() if owner != slug]
    words = sorted(set(re.findall(pattern, joined[slug])))
    return [word for word in words if not any(word in text or stem(word) in text for text in others)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_chapter_is_found_by_a_word_only_it_contains(course: Course, search: CourseSearch, language: str) -> None:
    for chapter in course.published:
        words = words_only_in(course, language, chapter.slug)
        assert words, (chapter.slug, language)
        for word in words[:3]:
            found = chapters_of(search, language, word)
            assert found, (chapter.slug, language, word)
            assert set(found) == {chapter.slug}, (chapter.slug, language, word, found)


def test_a_korean_query_inside_a_longer_word_finds_it(search: CourseSearch) -> None:
    # 서브스크립 is inside 오버서브스크립션: no word boundary, no space.
    hits = search.search("ko", "서브스크립").results.hits
    anchors = {(hit.document.chapter, hit.document.anchor) for hit in hits}
    assert ("infiniband", "fat-tree-arithmetic") in anchors
    marked = [segment.text for hit in hits for segment in hit.snippet if segment.highlighted]
    assert "서브스크립" in marked


def test_korean_spacing_and_particles_do_not_matter(search: CourseSearch) -> None:
    spaced = {(h.document.chapter, h.document.anchor) for h in search.search("ko", "레일 최적화").results.hits}
    unspaced = {(h.document.chapter, h.document.anchor) for h in search.search("ko", "레일최적화").results.hits}
    assert ("infiniband", "rail-optimised") in unspaced
    assert unspaced <= spaced
    # 대역폭은, 대역폭을, 대역폭의: all found by 대역폭.
    assert search.search("ko", "대역폭").results.total > 20


def test_bigrams_alone_are_not_a_match() -> None:
    index = SearchIndex([Document("section", "a", "x", "제목", "장", "대역은 넓고 역폭")])
    assert index.search(parse_query("대역폭")).hits == ()
    assert len(index.search(parse_query("역폭")).hits) == 1


def test_english_plurals_prefixes_and_compounds(search: CourseSearch) -> None:
    index = SearchIndex(
        [Document("section", "a", "x", "A", "A", "one switch"), Document("section", "b", "y", "B", "B", "two switches")]
    )
    for word in ("switch", "switches"):
        assert {hit.document.anchor for hit in index.search(parse_query(word)).hits} == {"x", "y"}, word
    prefix = search.search("en", "infini").results.hits
    assert any(hit.document.anchor == "term-infiniband" for hit in prefix[:3])
    joined = {h.document.anchor for h in search.search("en", "allreduce").results.hits}
    assert "term-all-reduce" in joined
    assert [stem(word) for word in ("topologies", "switches", "links", "bus", "class", "rdma")] == [
        "topology",
        "switch",
        "link",
        "bus",
        "class",
        "rdma",
    ]


@pytest.mark.parametrize(
    ("language", "query", "anchor"),
    [
        ("en", "busbw", "term-busbw"),
        ("en", "fat tree", "term-fat-tree"),
        ("ko", "대역폭", "term-bandwidth"),
        ("ko", "팻 트리", "term-fat-tree"),
    ],
)
def test_the_entry_named_by_the_query_ranks_near_the_top(
    search: CourseSearch, language: str, query: str, anchor: str
) -> None:
    hits = search.search(language, query).results.hits
    assert anchor in [hit.document.anchor for hit in hits[:3]]


def test_bm25_ranks_by_frequency_rarity_and_length() -> None:
    filler = " ".join(f"word{number}" for number in range(40))
    index = SearchIndex(
        [
            Document("section", "a", "one", "One", "A", f"nvlink {filler}"),
            Document("section", "b", "two", "Two", "B", f"nvlink nvlink nvlink {filler}"),
            Document("section", "c", "three", "Three", "C", "nvlink"),
            Document("section", "d", "four", "Four", "D", f"rail {filler}"),
        ]
    )
    order = [hit.document.anchor for hit in index.search(parse_query("nvlink")).hits]
    assert order[0] in ("two", "three")
    assert order[-1] == "one"
    both = index.search(parse_query("nvlink rail"))
    assert both.partial  # no document has both words: those with either are shown
    assert {hit.document.anchor for hit in both.hits} == {"one", "two", "three", "four"}


def test_every_word_must_match_when_some_document_has_them_all(search: CourseSearch) -> None:
    results = search.search("en", "fat tree switches").results
    assert not results.partial
    for hit in results.hits:
        text = f"{hit.document.title} {hit.document.text} {hit.document.keywords}".lower()
        assert "fat" in text
        assert "tree" in text


@pytest.mark.parametrize(
    "raw", ["", "   ", "\x00\x01\x02", "x" * 10_000, "가" * 10_000, "\u202e\u200b", "a\tb\nc", "\ud800"]
)
def test_bad_queries_are_cleaned_cut_and_still_searched(search: CourseSearch, raw: str) -> None:
    query = parse_query(raw)
    assert len(query.text) <= MAX_QUERY_CHARACTERS
    assert not re.search(r"[\x00-\x1f\u200b\u202e\ud800]", query.text)
    assert query.truncated == (len(raw) > MAX_QUERY_CHARACTERS)
    answer = search.search("en", raw)
    assert answer.results.total >= 0


def test_nothing_found_suggests_terms_spelled_alike(search: CourseSearch) -> None:
    answer = search.search("en", "infinibnad")
    assert answer.results.hits == ()
    assert answer.suggestions[0].id == "infiniband"
    assert search.search("ko", "팻트리즈").suggestions[0].id == "fat-tree"
    fallback = search.search("en", "qqqqzzzz").suggestions
    assert [entry.id for entry in fallback][:2] == ["nvlink", "nvswitch"]
    assert search.search("en", "").suggestions == ()


def test_documents_are_every_section_every_faq_entry_and_every_term(course: Course) -> None:
    for language in LANGUAGES:
        documents = course_documents(course, language, TITLES[language])
        kinds = Counter(document.kind for document in documents)
        assert kinds["glossary"] == len(course.glossary)
        assert kinds["faq"] == sum(len(chapter.pages[language].faq) for chapter in course.published)
        for chapter in course.published:
            anchors = {d.anchor for d in documents if d.chapter == chapter.slug and d.kind == "section"}
            assert anchors >= chapter.pages[language].anchors, (chapter.slug, language)


def test_plain_text_keeps_cells_apart_and_words_whole() -> None:
    html = '<table><tr><td>NVLink</td><td>PCIe</td></tr></table><p><a href="#">NVLink</a>는 &amp; 빠릅니다</p>'
    assert plain_text(html) == "NVLink PCIe NVLink는 & 빠릅니다"
    assert "nvlink" in document_terms(plain_text(html))
