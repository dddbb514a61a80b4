"""Course pages: language negotiation and the language cookie, the home page, chapters, errors, sitemap, robots."""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx2 import Response

from app.i18n import LANGUAGES
from tests.web.html import assert_clean, parse
from tests.web.quizzes import HX, state_of

NVLINK_SECTIONS = ("overview", "deep-dive", "technical-insight", "real-world", "strategic-impact", "risks")


def published(app: FastAPI) -> tuple[str, ...]:
    return state_of(app).course.published_slugs


def html_pages(app: FastAPI) -> list[str]:
    """The pages in the sitemap besides the lab: each language's home, glossary and every published chapter."""
    pages = ("/", "/glossary", *(f"/guides/{s}" for s in published(app)))
    return [f"/{lang}{page}" for lang in LANGUAGES for page in pages]


def lang_cookies(response: Response) -> list[str]:
    return [cookie for cookie in response.headers.get_list("set-cookie") if cookie.startswith("lang=")]


def test_root_negotiates_from_accept_language_then_cookie(client: TestClient) -> None:
    response = client.get("/", headers={"accept-language": "ko-KR,ko;q=0.9,en;q=0.5"}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/ko/"
    assert "Accept-Language" in response.headers["vary"]
    assert "Cookie" in response.headers["vary"]
    assert client.get("/", headers={"accept-language": "fr, en;q=0.1"}, follow_redirects=False).headers["location"] == (
        "/en/"
    )
    client.cookies.set("lang", "en")
    response = client.get("/", headers={"accept-language": "ko"}, follow_redirects=False)
    assert response.headers["location"] == "/en/"


@pytest.mark.parametrize("path", ["/ko/", "/ko/exam", "/ko/guides/nvlink/quiz"])
def test_a_per_learner_page_remembers_its_language_for_the_root(client: TestClient, path: str) -> None:
    client.cookies.set("lang", "en")
    first = client.get(path)
    assert first.status_code == 200
    assert [cookie.split(";")[0] for cookie in lang_cookies(first)] == ["lang=ko"]
    assert client.get("/", follow_redirects=False).headers["location"] == "/ko/"
    assert lang_cookies(client.get(path)) == []  # already remembered


@pytest.mark.parametrize("path", ["/ko/guides/nvlink", "/ko/lab", "/ko/lab/topology"])
def test_shared_pages_set_no_language_cookie(client: TestClient, path: str) -> None:
    """A shared page is the same bytes for everyone, Set-Cookie included: the root falls back to Accept-Language
    for a reader who has only read."""
    client.cookies.set("lang", "en")
    for headers in ({}, HX):
        response = client.get(path, headers=headers)
        assert response.status_code == 200
        assert response.headers.get_list("set-cookie") == []
    assert client.get("/", follow_redirects=False).headers["location"] == "/en/"


def test_error_pages_and_fragments_do_not_change_the_language(client: TestClient) -> None:
    client.cookies.set("lang", "en")
    assert lang_cookies(client.get("/ko/no-such-page")) == []
    assert lang_cookies(client.get("/ko/guides/no-such-chapter/quiz")) == []
    assert lang_cookies(client.get("/ko/lab/topology?gpu_b=999", headers=HX)) == []
    assert client.get("/", follow_redirects=False).headers["location"] == "/en/"


def test_every_page_renders_in_its_language_without_inline_code_or_styles(
    shared_app: FastAPI, client: TestClient
) -> None:
    for path in html_pages(shared_app):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/html")
        language = path.split("/")[1]
        assert f'<html lang="{language}"' in response.text
        assert_clean(response.text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_home_lists_chapters_and_has_course_json_ld(shared_app: FastAPI, client: TestClient, language: str) -> None:
    page = parse(client.get(f"/{language}/").text)
    for slug in published(shared_app):
        assert f"/{language}/guides/{slug}" in page.links()
    course = json.loads(page.json_ld[0])
    assert course["@type"] == "Course"
    assert course["inLanguage"] == language
    assert course["url"] == f"http://testserver/{language}/"


def test_home_is_translated(shared_app: FastAPI, client: TestClient) -> None:
    english, korean = client.get("/en/").text, client.get("/ko/").text
    assert "Start the course" in english
    assert "강좌 시작하기" in korean
    assert "Start the course" not in korean
    first = published(shared_app)[0]
    assert f'href="/ko/guides/{first}">강좌 시작하기</a>' in korean  # a new visitor starts at the beginning
    if any(chapter.planned for chapter in state_of(shared_app).course.chapters):
        assert "In preparation" in english
        assert "준비 중" in korean


@pytest.mark.parametrize("language", LANGUAGES)
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


def test_the_chapter_links_to_its_quiz(client: TestClient) -> None:
    assert 'href="/ko/guides/nvlink/quiz"' in client.get("/ko/guides/nvlink").text


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
        ("/ko/nothing/here", "ko", "페이지를 찾을 수 없습니다"),
        ("/ko/attempts/no-such-attempt", "ko", "페이지를 찾을 수 없습니다"),
        ("/xx/", "en", "Page not found"),
    ],
)
def test_not_found_page_is_in_the_learners_language_with_a_way_back(
    client: TestClient, path: str, language: str, marker: str
) -> None:
    for headers in ({}, HX):
        response = client.get(path, headers=headers)
        assert response.status_code == 404
        assert response.headers["cache-control"] == "no-store"
        assert marker in response.text
        assert f'href="/{language}/"' in response.text


def test_a_planned_chapter_is_not_found(shared_app: FastAPI, client: TestClient) -> None:
    planned = [chapter.slug for chapter in state_of(shared_app).course.chapters if chapter.planned]
    for slug in planned:
        assert client.get(f"/ko/guides/{slug}").status_code == 404
        assert client.get(f"/ko/guides/{slug}/quiz").status_code == 404


def test_not_found_negotiates_language_outside_language_paths(client: TestClient) -> None:
    response = client.get("/no/such/page", headers={"accept-language": "ko"})
    assert response.status_code == 404
    assert "페이지를 찾을 수 없습니다" in response.text


def test_method_not_allowed_is_a_page_not_a_500(client: TestClient) -> None:
    response = client.post("/en/guides/nvlink")
    assert response.status_code == 405
    assert "This address does not accept that request" in response.text
    api = client.delete("/api/v1/links")
    assert api.status_code == 405
    assert api.json() == {"detail": "This address does not accept that kind of request."}


def test_sitemap_lists_every_page_with_hreflang_alternates(shared_app: FastAPI, client: TestClient) -> None:
    response = client.get("/sitemap.xml")
    assert response.headers["content-type"].startswith("application/xml")
    tree = ElementTree.fromstring(response.content)
    namespaces = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    locations = [element.text for element in tree.findall("s:url/s:loc", namespaces)]
    expected = {*html_pages(shared_app), *(f"/{language}/lab" for language in LANGUAGES)}
    assert set(locations) == {f"http://testserver{path}" for path in expected}
    assert len(locations) == len(set(locations))
    for url in tree.findall("s:url", namespaces):
        hreflangs = {link.get("hreflang") for link in url.findall("x:link", namespaces)}
        assert hreflangs == set(LANGUAGES)
    for path in expected:
        assert client.get(path).status_code == 200, path


def test_robots_points_at_the_sitemap(client: TestClient) -> None:
    text = client.get("/robots.txt").text
    assert "Sitemap: http://testserver/sitemap.xml" in text
    assert "Disallow: /api/" in text


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pager_shows_the_previous_and_the_next_chapter(
    shared_app: FastAPI, client: TestClient, language: str
) -> None:
    course = state_of(shared_app).course
    slugs = published(shared_app)
    for position, slug in enumerate(slugs):
        html = client.get(f"/{language}/guides/{slug}").text
        pager = html[html.index('<nav class="chapter-pager"') :]
        pager = pager[: pager.index("</nav>")]
        previous = re.search(r'rel="prev" href="([^"]+)"', pager)
        following = re.search(r'rel="next" href="([^"]+)"', pager)
        if position > 0:
            assert previous is not None
            assert previous.group(1) == f"/{language}/guides/{slugs[position - 1]}"
            assert course.chapters[position - 1].titles[language] in pager
        else:
            assert previous is None
        if position + 1 < len(slugs):
            assert following is not None
            assert following.group(1) == f"/{language}/guides/{slugs[position + 1]}"
        else:
            assert following is None
            assert f'href="/{language}/"' in pager  # the last chapter leads back to the course


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_mention_of_another_chapter_links_to_a_published_chapter(
    shared_app: FastAPI, client: TestClient, language: str
) -> None:
    slugs = set(published(shared_app))
    linked: set[str] = set()
    for slug in slugs:
        html = client.get(f"/{language}/guides/{slug}").text
        prose = html[html.index('<div class="prose">') : html.index('<section class="sources')]
        for target in re.findall(rf'href="/{language}/guides/([a-z0-9-]+)', prose):
            assert target in slugs, f"{slug} links to {target}, which is not published"
            linked.add(target)
        assert "planned-chapter-link" not in prose  # every chapter is published, so every mention is a link
    assert len(linked) >= 5


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_chapter_contents_are_a_disclosure_and_tables_scroll_in_named_regions(
    client: TestClient, language: str
) -> None:
    html = client.get(f"/{language}/guides/nvlink").text
    assert re.search(
        r'<nav class="toc" aria-labelledby="toc-title">\s*<details class="toc-details">\s*'
        r'<summary id="toc-title" class="toc-title">',
        html,
    )
    prose = re.sub(r"<figure\b.*?</figure>", "", html, flags=re.S)  # a diagram's data table is the diagram's
    regions = re.findall(r'<div class="table-scroll" role="region" aria-label="([^"]+)" tabindex="0">', prose)
    assert len(regions) == prose.count("<table>") >= 2
    assert len(set(regions)) == len(regions)
    assert '<pre class="highlight" tabindex="0">' in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_header_shows_a_short_name_and_names_the_link_with_the_whole_title(
    shared_app: FastAPI, client: TestClient, language: str
) -> None:
    title = state_of(shared_app).course.titles[language]
    short, _, rest = title.partition(":")
    html = client.get(f"/{language}/").text
    assert f'class="brand" href="/{language}/" aria-label="{title}"' in html
    assert f'<span class="brand-name">{short}</span><span class="brand-tagline">:{rest}</span>' in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_numbers_in_chapters_keep_their_units(shared_app: FastAPI, client: TestClient, language: str) -> None:
    """No "450 GB/s" with an ordinary space is left in the text of a chapter (code and diagrams aside)."""
    loose = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)* (?:GB/s|Gb/s|TB/s|Tb/s|GiB|GB|µs|ms|ns|GPUs|W)(?![A-Za-z0-9/])")
    bound = 0
    for slug in published(shared_app):
        html = client.get(f"/{language}/guides/{slug}").text
        main = html[html.index("<main") : html.index("</main>")]
        text = re.sub(r"<(pre|code|figure)\b.*?</\1>", "", main, flags=re.S)  # figures: the diagrams' own text
        text = re.sub(r"<[^>]+>", "", text)
        assert loose.findall(text) == [], slug
        bound += text.count("\u00a0")
    assert bound > 300
