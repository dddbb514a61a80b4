"""The first use of each glossary term in a chapter becomes a link to its glossary entry.

The pass runs over the parsed Markdown, on text nodes only: headings, code (spans and blocks), the text of
links, callout titles and the source list are never rewritten, and figures are already numbers by then. The link
is an ordinary `<a>` whose text is the word as the chapter wrote it, so it is reached by Tab, read by a screen
reader as a link with that name, and works without JavaScript.

Where a word starts and ends differs by script. A Latin spelling must stand alone (`ring` is not in `string`,
`LL` not in `we'll`); it may touch Hangul, because Korean attaches particles to it (`NVLink는`). A Hangul
spelling must not continue a word on its left (`트리` is not in `스트리밍`) but may be followed by a particle
(`대역폭은`). A spelling in lower case matches any case (`All-reduce` at the start of a sentence); one with
capitals matches exactly, so the protocol `LL` is not the `ll` of a word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from markdown_it.token import Token

_HANGUL = re.compile("[\uac00-\ud7a3]")
_LATIN_WORD = re.compile("[A-Za-z0-9_]")
# The places a spelling may start: a run of Latin letters and digits, a run of Hangul, or any other character.
_RUN = re.compile(r"[A-Za-z0-9_]+|[\uac00-\ud7a3]+|[^\sA-Za-z0-9_\uac00-\ud7a3]")


def _key(run: str) -> str:
    """What a spelling and the text share at a start: a Latin run whole (the spelling's first word is a whole
    word of the text), a Hangul run by its first syllable (the text's run goes on with a particle)."""
    return run[0] if _HANGUL.match(run) else run.casefold()


@dataclass(frozen=True, slots=True)
class _Spelling:
    text: str
    folded: str
    exact: bool  # written with capitals: matches only as written
    term_id: str
    open_end: bool  # ends in Hangul: a particle may follow


@dataclass(frozen=True, slots=True)
class TermLinker:
    """Finds glossary spellings in one language's text; each links to `href_prefix` + the term's id.

    A regular expression of every spelling tried at every position cost more than the rest of the chapter's
    rendering (0.7 s for the course); looking spellings up by the word they start with costs a few milliseconds.
    """

    candidates: dict[str, tuple[_Spelling, ...]]  # start key -> spellings, longest first
    href_prefix: str  # "/en/glossary#term-"

    @classmethod
    def build(cls, spellings: Iterable[tuple[str, str]], href_prefix: str) -> TermLinker | None:
        """`spellings`: (term id, spelling) pairs; the first owner of a spelling keeps it. None when empty."""
        owners: dict[str, _Spelling] = {}
        for term_id, spelling in spellings:
            exact = not spelling.islower() and any(character.isupper() for character in spelling)
            entry = _Spelling(spelling, spelling.casefold(), exact, term_id, bool(_HANGUL.match(spelling[-1])))
            owners.setdefault(spelling if exact else entry.folded, entry)
        grouped: dict[str, list[_Spelling]] = {}
        for entry in owners.values():
            first = _RUN.match(entry.text)
            if first is not None:
                grouped.setdefault(_key(first.group(0)), []).append(entry)
        if not grouped:
            return None
        # Longest first: at one position "NVLink-C2C" wins over "NVLink", "Reduce-Scatter" over "Reduce".
        candidates = {key: tuple(sorted(group, key=lambda e: -len(e.text))) for key, group in grouped.items()}
        return cls(candidates, href_prefix)

    def _match(self, text: str, start: int, run: str) -> _Spelling | None:
        for entry in self.candidates.get(_key(run), ()):
            end = start + len(entry.text)
            piece = text[start:end]
            if piece != entry.text and (entry.exact or piece.casefold() != entry.folded or piece.isupper()):
                continue  # a spelling in lower case is not the acronym of another thing (SEND/RECV verbs)
            if not entry.open_end and end < len(text) and _LATIN_WORD.match(text[end]):
                continue
            return entry
        return None

    def link_first_uses(self, tokens: Sequence[Token]) -> None:
        """Rewrite `tokens` in place: each term's first use in running text becomes a link."""
        linked: set[str] = set()
        in_heading = in_sources = False
        for token in tokens:
            if token.type == "heading_open":
                in_heading = True
            elif token.type == "heading_close":
                in_heading = False
            elif token.type == "footnote_block_open":
                in_sources = True
            elif token.type == "inline" and not in_heading and not in_sources and token.children:
                token.children = self._link_children(token.children, linked)

    def _link_children(self, children: list[Token], linked: set[str]) -> list[Token]:
        result: list[Token] = []
        link_depth = 0
        for child in children:
            if child.type == "link_open":
                link_depth += 1
            elif child.type == "link_close":
                link_depth -= 1
            if child.type != "text" or link_depth > 0:
                result.append(child)
                continue
            result.extend(self._split(child, linked))
        return result

    def _split(self, child: Token, linked: set[str]) -> list[Token]:
        text = child.content
        pieces: list[Token] = []
        position = 0  # text before it is in `pieces`
        consumed = 0  # text before it belongs to a spelling found: "Reduce-Scatter" is never read as "Reduce"
        for run in _RUN.finditer(text):
            if run.start() < consumed:
                continue
            found = self._match(text, run.start(), run.group(0))
            if found is None:
                continue
            consumed = run.start() + len(found.text)
            if found.term_id in linked:
                continue
            linked.add(found.term_id)
            if run.start() > position:
                pieces.append(_text(text[position : run.start()]))
            opening = Token("link_open", "a", 1)
            opening.attrs = {"href": f"{self.href_prefix}{found.term_id}", "class": "term-link"}
            pieces.extend((opening, _text(text[run.start() : consumed]), Token("link_close", "a", -1)))
            position = consumed
        if not pieces:
            return [child]
        if position < len(text):
            pieces.append(_text(text[position:]))
        return pieces


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token
