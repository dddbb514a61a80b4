"""Reading HTML the way the web tests look at it: elements with their attributes, ids, links, scripts, JSON-LD,
visible text. A helper module, not a test module: test modules import it, never each other."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

Attributes = dict[str, str | None]


class PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, Attributes]] = []
        self.scripts: list[Attributes] = []
        self.json_ld: list[str] = []
        self.text_parts: list[str] = []
        self._in_json_ld = False
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        if tag == "script":
            self.scripts.append(attributes)
            self._in_script = True
            self._in_json_ld = attributes.get("type") == "application/ld+json"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = self._in_json_ld = False

    def handle_data(self, data: str) -> None:
        if self._in_json_ld:
            self.json_ld.append(data)
        elif not self._in_script:
            self.text_parts.append(data)

    @property
    def ids(self) -> list[str]:
        return [a["id"] or "" for _, a in self.elements if a.get("id")]

    def find(self, tag: str, **wanted: str) -> list[Attributes]:
        """Elements `tag` whose attributes have these values (`class_` stands for `class`)."""
        wanted = {name.rstrip("_"): value for name, value in wanted.items()}
        return [a for t, a in self.elements if t == tag and all(a.get(k) == v for k, v in wanted.items())]

    def links(self) -> list[str]:
        return [a.get("href") or "" for tag, a in self.elements if tag == "a"]

    def stylesheets(self) -> list[str]:
        return [a.get("href") or "" for tag, a in self.elements if tag == "link" and a.get("rel") == "stylesheet"]

    @property
    def text(self) -> str:
        """The visible text, whitespace collapsed."""
        return " ".join(" ".join(self.text_parts).split())

    def asset_urls(self) -> list[str]:
        """Every static file the page loads: stylesheets, icons, scripts, images."""
        urls = [a.get("href") or "" for tag, a in self.elements if tag == "link"]
        urls += [a.get("src") or "" for tag, a in self.elements if tag in ("script", "img") and a.get("src")]
        return [url for url in urls if url.startswith("/static/")]


def parse(html: str) -> PageParser:
    parser = PageParser()
    parser.feed(html)
    parser.close()
    return parser


def assert_clean(html: str) -> None:
    """Nothing the CSP blocks (style attributes, inline handlers, inline scripts or styles) and no duplicate ids;
    JSON-LD blocks are JSON."""
    page = parse(html)
    for tag, attributes in page.elements:
        assert "style" not in attributes, f"<{tag} style=...> is blocked by the CSP"
        assert not [name for name in attributes if name.startswith("on")], f"inline handler on <{tag}>"
    for script in page.scripts:
        assert script.get("src") or script.get("type") == "application/ld+json", "inline script"
    assert "<style" not in html
    ids = page.ids
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    for block in page.json_ld:
        json.loads(block)


def has_hangul(text: str) -> bool:
    return re.search("[가-힣]", text) is not None
