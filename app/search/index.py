"""An in-memory inverted index over one language's documents, ranked with BM25.

Each query unit (a Latin word, a Hangul run; app/search/text.py) must match, as a search box is expected to
behave; only when no document matches all of them are documents matching some of them shown, fewest missing
first. A Latin word matches its stem exactly or, from three letters, any indexed word it begins (as-you-type);
a prefix match counts half. A Hangul run matches where all its bigrams are and the run itself occurs in the text
(bigrams alone would take 대역·역폭 in different words for 대역폭).

BM25 (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009) with the usual
k1 = 1.2 and b = 0.75; a title's terms count three times, so a section about a term ranks above one that
mentions it.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.search.text import (
    Query,
    compact,
    document_terms,
    hangul_terms,
    is_hangul,
    normalize,
    stem,
)

K1 = 1.2
B = 0.75
TITLE_WEIGHT = 3
PREFIX_WEIGHT = 0.5
TITLE_MATCH_BONUS = 1.5
MIN_PREFIX_LENGTH = 3
MAX_PREFIX_EXPANSIONS = 40
SNIPPET_CHARACTERS = 200
SNIPPET_LEAD = 60


@dataclass(frozen=True, slots=True)
class Document:
    """One thing a result can link to: a chapter section, a FAQ entry or a glossary entry."""

    kind: str  # "section", "faq" or "glossary"
    chapter: str | None  # the chapter's slug (None for a glossary entry)
    anchor: str | None  # the id on its page (None: the top of the chapter)
    title: str  # the section's heading, the question, the term
    context: str  # where it is: the chapter's title, or the glossary
    text: str  # what is searched besides the title, and what snippets are cut from
    keywords: str = ""  # searched, never shown (a glossary entry's other spellings)


@dataclass(frozen=True, slots=True)
class Segment:
    text: str
    highlighted: bool


@dataclass(frozen=True, slots=True)
class Hit:
    document: Document
    score: float
    snippet: tuple[Segment, ...]
    title: tuple[Segment, ...]


@dataclass(frozen=True, slots=True)
class Results:
    query: Query
    hits: tuple[Hit, ...]
    total: int
    partial: bool  # no document matched every word; these match some


class SearchIndex:
    def __init__(self, documents: Iterable[Document]) -> None:
        self.documents: tuple[Document, ...] = tuple(documents)
        postings: dict[str, dict[int, int]] = {}
        self._lengths: list[int] = []
        self._compact: list[str] = []
        self._titles: list[str] = []
        for number, document in enumerate(self.documents):
            counts = Counter(document_terms(f"{document.text} {document.keywords}"))
            for term in document_terms(document.title):
                counts[term] += TITLE_WEIGHT
            for term, count in counts.items():
                posting = postings.get(term)
                if posting is None:
                    postings[term] = {number: count}
                else:
                    posting[number] = count
            self._lengths.append(sum(counts.values()))
            self._compact.append(compact(f"{document.title} {document.text} {document.keywords}"))
            self._titles.append(compact(document.title))
        self._postings = postings
        self._count = max(len(self.documents), 1)
        self._average_length = sum(self._lengths) / self._count if self._lengths else 1.0
        self._latin_vocabulary = sorted(term for term in postings if not is_hangul(term))

    def search(self, query: Query, limit: int = 20) -> Results:
        if query.empty:
            return Results(query, (), 0, partial=False)
        scores: dict[int, float] = {}
        matched: Counter[int] = Counter()
        for unit in query.units:
            for number, score in self._unit_scores(unit).items():
                scores[number] = scores.get(number, 0.0) + score
                matched[number] += 1
        whole = compact(query.text)
        for number in scores:
            # A document titled with every word of the query (the glossary entry, the section about it) first,
            # and one titled exactly so before those.
            if all(unit in self._titles[number] for unit in query.units):
                scores[number] *= TITLE_MATCH_BONUS * (TITLE_MATCH_BONUS if self._titles[number] == whole else 1)
        complete = [number for number in scores if matched[number] == len(query.units)]
        partial = not complete
        chosen = complete or list(scores)
        # Fewest missing units first, then BM25; the document order breaks ties, so results are deterministic.
        ranked = sorted(chosen, key=lambda number: (-matched[number], -scores[number], number))
        highlight = _highlighter(query)
        hits = tuple(
            Hit(
                self.documents[number],
                scores[number],
                snippet(self.documents[number].text, highlight),
                tuple(_segments(self.documents[number].title, highlight)),
            )
            for number in ranked[:limit]
        )
        return Results(query, hits, len(ranked), partial)

    def _idf(self, document_frequency: int) -> float:
        return math.log(1 + (self._count - document_frequency + 0.5) / (document_frequency + 0.5))

    def _bm25(self, frequency: int, document_frequency: int, number: int) -> float:
        norm = K1 * (1 - B + B * self._lengths[number] / self._average_length)
        return self._idf(document_frequency) * frequency * (K1 + 1) / (frequency + norm)

    def _unit_scores(self, unit: str) -> dict[int, float]:
        if is_hangul(unit):
            return self._hangul_scores(unit)
        weights: dict[str, float] = {}
        if stem(unit) in self._postings:
            weights[stem(unit)] = 1.0
        if len(unit) >= MIN_PREFIX_LENGTH:
            start = bisect.bisect_left(self._latin_vocabulary, unit)
            for term in self._latin_vocabulary[start : start + MAX_PREFIX_EXPANSIONS]:
                if not term.startswith(unit):
                    break
                weights.setdefault(term, PREFIX_WEIGHT)
        scores: dict[int, float] = {}
        for term, weight in weights.items():
            posting = self._postings[term]
            for number, frequency in posting.items():
                score = weight * self._bm25(frequency, len(posting), number)
                if score > scores.get(number, 0.0):
                    scores[number] = score
        return scores

    def _hangul_scores(self, run: str) -> dict[int, float]:
        if len(run) == 1:
            # One syllable: too short for a bigram; counted in the text itself (a few hundred documents).
            counts = {number: text.count(run) for number, text in enumerate(self._compact) if run in text}
            return {number: self._bm25(count, len(counts), number) for number, count in counts.items()}
        terms = set(hangul_terms(run))
        if any(term not in self._postings for term in terms):
            return {}
        lists = sorted((self._postings[term] for term in terms), key=len)
        candidates = set(lists[0]).intersection(*lists[1:])
        return {
            number: sum(self._bm25(self._postings[t][number], len(self._postings[t]), number) for t in terms)
            for number in candidates
            if run in self._compact[number]
        }


def _highlighter(query: Query) -> re.Pattern[str] | None:
    """What to mark in a result: words beginning with a Latin unit, and each Hangul run as written."""
    patterns: list[str] = []
    for unit in sorted(query.units, key=len, reverse=True):
        if is_hangul(unit):
            patterns.append(r"\s*".join(re.escape(character) for character in unit))
        else:
            word = stem(unit) if len(stem(unit)) < len(unit) else unit
            patterns.append(rf"(?<![a-z0-9]){re.escape(word)}[a-z0-9]*")
    if not patterns:
        return None
    return re.compile("|".join(patterns), re.IGNORECASE)


def _segments(text: str, highlight: re.Pattern[str] | None) -> list[Segment]:
    if highlight is None:
        return [Segment(text, False)]
    segments: list[Segment] = []
    position = 0
    for match in highlight.finditer(normalize_for_matching(text)):
        if match.start() == match.end():
            continue
        if match.start() > position:
            segments.append(Segment(text[position : match.start()], False))
        segments.append(Segment(text[match.start() : match.end()], True))
        position = match.end()
    if position < len(text):
        segments.append(Segment(text[position:], False))
    return segments


def normalize_for_matching(text: str) -> str:
    """The text with each character case-folded in place, so that match positions are positions in `text`."""
    folded = normalize(text)
    return folded if len(folded) == len(text) else text.lower()


def snippet(text: str, highlight: re.Pattern[str] | None) -> tuple[Segment, ...]:
    """About SNIPPET_CHARACTERS of `text` around its first match, cut at spaces, with the matches marked."""
    first = highlight.search(normalize_for_matching(text)) if highlight is not None else None
    start = 0 if first is None else max(0, first.start() - SNIPPET_LEAD)
    if start > 0:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < (first.start() if first else start) else start
    end = min(len(text), start + SNIPPET_CHARACTERS)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    piece = text[start:end]
    segments = _segments(piece, highlight)
    if start > 0:
        segments.insert(0, Segment("… ", False))
    if end < len(text):
        segments.append(Segment(" …", False))
    return tuple(segments)


def suggestions(query: Query, candidates: Sequence[tuple[str, str]], limit: int = 5) -> list[str]:
    """Ids of the `candidates` ((id, spelling) pairs) spelled most like the query, by the Dice coefficient of
    their character bigrams: `infiniban` and `nvlnk` still suggest InfiniBand and NVLink."""
    wanted = _bigrams(query.text)
    if not wanted:
        return []
    best: dict[str, float] = {}
    for candidate_id, spelling in candidates:
        theirs = _bigrams(spelling)
        if not theirs:
            continue
        overlap = sum((wanted & theirs).values())
        score = 2 * overlap / (sum(wanted.values()) + sum(theirs.values()))
        if score > best.get(candidate_id, 0.0):
            best[candidate_id] = score
    ranked = sorted((item for item in best.items() if item[1] >= 0.3), key=lambda item: (-item[1], item[0]))
    return [candidate_id for candidate_id, _ in ranked[:limit]]


def _bigrams(text: str) -> Counter[str]:
    folded = re.sub(r"[\s\-_/]+", "", normalize(text))
    return Counter(folded[index : index + 2] for index in range(len(folded) - 1))
