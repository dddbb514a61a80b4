from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from xml.etree import ElementTree

import pytest
from fastapi.testclient import TestClient

from app.web.i18n import SUPPORTED_LANGUAGES

NVLINK_SECTIONS = ("overview", "deep-dive", "technical-insight", "real-world", "strategic-impact", "risks")


class PageParser(HTMLParser):
    """Collects what the tests look at: attributes, ids, links, scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.attributes: list[tuple[str, dict[str, str | None]]] = []
        self.ids: list[str] = []
        self.scripts: list[dict[str, str | None]] = []
        self.json_ld: list[str] = []
        self._in_json_ld = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.attributes.append((tag, attributes))
        if attributes.get("id"):
            self.ids.append(attributes["id"] or "")
        if tag == "script":
            self.scripts.append(attributes)
            self._in_json_ld = attributes.get("type") == "application/ld+json"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_json_ld = False

    def handle_data(self, data: str) -> None:
        if self._in_json_ld:
            self.json_ld.append(data)

    def links(self) -> list[str]:
        return [a.get("href") or "" for tag, a in self.attributes if tag == "a"]


def parse(html: str) -> PageParser:
    parser = PageParser()
    parser.feed(html)
    return parser


def html_pages() -> list[str]:
    pages = []
    for language in SUPPORTED_LANGUAGES:
        pages += [f"/{language}/", f"/{language}/guides/nvlink"]
    return pages


def test_root_negotiates_from_accept_language_then_cookie(client: TestClient) -> None:
    response = client.get("/", headers={"accept-language": "ko-KR,ko;q=0.9,en;q=0.5"}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/ko/"
    assert "Accept-Language" in response.headers["vary"]
    client.cookies.set("lang", "en")
    response = client.get("/", headers={"accept-language": "ko"}, follow_redirects=False)
    assert response.headers["location"] == "/en/"


@pytest.mark.parametrize("path", ["/ko/guides/nvlink", "/ko/lab", "/ko/"])
def test_visiting_a_language_remembers_it_for_the_root(client: TestClient, path: str) -> None:
    client.cookies.set("lang", "en")
    first = client.get(path)
    assert any(cookie.startswith("lang=ko;") for cookie in first.headers.get_list("set-cookie"))
    assert client.get("/", follow_redirects=False).headers["location"] == "/ko/"
    again = client.get(path)
    assert not any(cookie.startswith("lang=") for cookie in again.headers.get_list("set-cookie"))


def test_error_pages_and_fragments_do_not_change_the_language(client: TestClient) -> None:
    client.cookies.set("lang", "en")
    not_found = client.get("/ko/no-such-page")
    assert not any(cookie.startswith("lang=") for cookie in not_found.headers.get_list("set-cookie"))
    assert client.get("/", follow_redirects=False).headers["location"] == "/en/"


@pytest.mark.parametrize("path", html_pages())
def test_every_page_renders_in_its_language_without_inline_code_or_styles(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    language = path.split("/")[1]
    assert f'<html lang="{language}"' in response.text
    page = parse(response.text)
    for tag, attributes in page.attributes:
        assert "style" not in attributes, f"<{tag} style=...> is blocked by the CSP"
        assert not [name for name in attributes if name.startswith("on")], f"inline handler on <{tag}>"
    for script in page.scripts:
        assert script.get("src") or script.get("type") == "application/ld+json", "inline script"
    assert len(page.ids) == len(set(page.ids)), "duplicate ids"
    for block in page.json_ld:
        json.loads(block)


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_home_lists_chapters_and_has_course_json_ld(client: TestClient, language: str) -> None:
    page = parse(client.get(f"/{language}/").text)
    assert f"/{language}/guides/nvlink" in page.links()
    course = json.loads(page.json_ld[0])
    assert course["@type"] == "Course"
    assert course["inLanguage"] == language
    assert course["url"] == f"http://testserver/{language}/"


def test_home_is_translated(client: TestClient) -> None:
    english, korean = client.get("/en/").text, client.get("/ko/").text
    assert "Start the course" in english
    assert "강좌 시작하기" in korean
    assert "In preparation" in english
    assert "준비 중" in korean
    assert "Start the course" not in korean


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_nvlink_chapter_has_toc_sections_sources_faq_and_switcher(client: TestClient, language: str) -> None:
    response = client.get(f"/{language}/guides/nvlink")
    page = parse(response.text)
    for anchor in (*NVLINK_SECTIONS, "faq", "sources"):
        assert anchor in page.ids, f"missing section #{anchor}"
        assert f"#{anchor}" in page.links(), f"table of contents lacks #{anchor}"
    other = "ko" if language == "en" else "en"
    assert f"/{other}/guides/nvlink" in page.links(), "the language switcher must keep the page"
    faq = json.loads(page.json_ld[0])
    assert faq["@type"] == "FAQPage"
    assert len(faq["mainEntity"]) >= 4
    assert all(entity["acceptedAnswer"]["text"] for entity in faq["mainEntity"])
    sources = [link for link in page.links() if link.startswith("https://")]
    assert len(sources) >= 5
    assert re.search(r'<time datetime="\d{4}-\d{2}-\d{2}">', response.text)
    assert f'hreflang="{other}"' in response.text


def test_chapter_figures_come_from_the_simulator(client: TestClient) -> None:
    from app.simulator import LINKS

    text = client.get("/en/guides/nvlink").text
    assert "{{" not in text
    assert f"{LINKS['nvlink4'].bidirectional_GBps:,.0f}" in text
    assert f"{LINKS['nvlink4'].per_direction_GBps:,.0f}" in text


@pytest.mark.parametrize(
    ("path", "language", "marker"),
    [
        ("/en/guides/no-such-chapter", "en", "Page not found"),
        ("/ko/guides/no-such-chapter", "ko", "페이지를 찾을 수 없습니다"),
        ("/ko/guides/nvswitch", "ko", "페이지를 찾을 수 없습니다"),  # planned, not published
        ("/ko/nothing/here", "ko", "페이지를 찾을 수 없습니다"),
        ("/xx/", "en", "Page not found"),
    ],
)
def test_not_found_page_is_in_the_learners_language_with_a_way_back(
    client: TestClient, path: str, language: str, marker: str
) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert marker in response.text
    assert f'href="/{language}/"' in response.text


def test_not_found_negotiates_language_outside_language_paths(client: TestClient) -> None:
    response = client.get("/no/such/page", headers={"accept-language": "ko"})
    assert response.status_code == 404
    assert "페이지를 찾을 수 없습니다" in response.text


def test_method_not_allowed_is_a_page_not_a_500(client: TestClient) -> None:
    response = client.post("/en/guides/nvlink")
    assert response.status_code == 405
    assert "This address does not accept that request" in response.text


def test_sitemap_lists_every_page_with_hreflang_alternates(client: TestClient) -> None:
    response = client.get("/sitemap.xml")
    assert response.headers["content-type"].startswith("application/xml")
    tree = ElementTree.fromstring(response.content)
    namespaces = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    locations = [element.text for element in tree.findall("s:url/s:loc", namespaces)]
    expected = {*html_pages(), *(f"/{language}/lab" for language in SUPPORTED_LANGUAGES)}
    assert set(locations) == {f"http://testserver{path}" for path in expected}
    for url in tree.findall("s:url", namespaces):
        hreflangs = {link.get("hreflang") for link in url.findall("x:link", namespaces)}
        assert hreflangs == set(SUPPORTED_LANGUAGES)


def test_robots_points_at_the_sitemap(client: TestClient) -> None:
    text = client.get("/robots.txt").text
    assert "Sitemap: http://testserver/sitemap.xml" in text
    assert "Disallow: /api/" in text


def test_static_assets_are_versioned_by_content(client: TestClient) -> None:
    page = parse(client.get("/en/").text)
    stylesheets = [a.get("href") or "" for tag, a in page.attributes if tag == "link" and a.get("rel") == "stylesheet"]
    assert stylesheets
    assert all(re.search(r"\?v=[0-9a-f]{12}$", href) for href in stylesheets)
    assert client.get(stylesheets[0]).status_code == 200
