"""The glossary page, the search page and fragment, and what lets browsers and search engines find them."""

from __future__ import annotations

import json
import logging
import re
from urllib.parse import quote
from xml.etree import ElementTree

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx2 import Response

from app.i18n import LANGUAGES
from app.web.cache_policy import SHARED_PAGE
from tests.web.html import assert_clean, parse
from tests.web.quizzes import HX, state_of

IDENTITY = {"accept-encoding": "identity"}


def vary(response: Response) -> set[str]:
    values = response.headers.get_list("vary")
    return {item.strip().lower() for value in values for item in value.split(",") if item.strip()}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_glossary_lists_every_term_in_reading_order_with_an_index_and_json_ld(
    shared_app: FastAPI, client: TestClient, language: str
) -> None:
    glossary = state_of(shared_app).course.glossary
    response = client.get(f"/{language}/glossary")
    assert response.status_code == 200
    assert response.headers["cache-control"] == SHARED_PAGE
    assert_clean(response.text)
    page = parse(response.text)
    entries = [
        attributes["id"] for _, attributes in page.elements if "glossary-entry" in (attributes.get("class") or "")
    ]
    assert entries == [entry.anchor for entry in glossary.ordered(language)]
    assert len(entries) == len(glossary) >= 60
    # The index names every group, and each group's heading is where its link goes.
    index = response.text[response.text.index('class="glossary-index"') :]
    index = index[: index.index("</nav>")]
    for target in re.findall(r'href="#(initial-[0-9a-f-]+)"', index):
        assert target in page.ids
    (data,) = [json.loads(block) for block in page.json_ld]
    assert data["@type"] == "DefinedTermSet"
    assert data["inLanguage"] == language
    assert [term["termCode"] for term in data["hasDefinedTerm"]] == [e.id for e in glossary.ordered(language)]
    assert all(term["description"] and term["url"].startswith("http://testserver/") for term in data["hasDefinedTerm"])


def test_korean_entries_are_in_ganada_order_with_initial_consonants_then_latin(client: TestClient) -> None:
    page = parse(client.get("/ko/glossary").text)
    headings = [a.get("id") or "" for tag, a in page.elements if tag == "h2"]
    headings = [heading for heading in headings if heading.startswith("initial-")]
    initials = [chr(int(code, 16)) for heading in headings for code in heading.removeprefix("initial-").split("-")]
    hangul = [initial for initial in initials if "ㄱ" <= initial <= "ㅎ"]
    assert hangul
    assert hangul == sorted(hangul)
    assert initials[: len(hangul)] == hangul, "Hangul initials come before Latin letters"
    assert "ㄲ" not in initials  # tense consonants are indexed under their plain ones


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_glossary_entry_links_to_the_section_that_teaches_it(
    shared_app: FastAPI, client: TestClient, language: str
) -> None:
    glossary = state_of(shared_app).course.glossary
    html = client.get(f"/{language}/glossary").text
    for entry in glossary.entries:
        block = html[html.index(f'id="{entry.anchor}"') :]
        block = block[: block.index("</div>")]
        assert f'href="/{language}/guides/{entry.chapter}#{entry.section}"' in block, entry.id
    for slug in {entry.chapter for entry in glossary.entries}:
        chapter = parse(client.get(f"/{language}/guides/{slug}").text)
        taught = {entry.section for entry in glossary.entries if entry.chapter == slug}
        assert taught <= set(chapter.ids)


@pytest.mark.parametrize("language", LANGUAGES)
def test_chapters_link_the_first_use_of_terms_to_the_glossary(client: TestClient, language: str) -> None:
    html = client.get(f"/{language}/guides/infiniband").text
    prose = html[html.index('<div class="prose">') : html.index('<section class="sources')]
    targets = re.findall(rf'<a href="/{language}/glossary#term-([a-z0-9-]+)" class="term-link">', prose)
    assert "rdma" in targets
    assert "fat-tree" in targets
    assert len(targets) == len(set(targets)), "only the first use of each term is a link"
    glossary_ids = set(parse(client.get(f"/{language}/glossary").text).ids)
    assert {f"term-{target}" for target in targets} <= glossary_ids
    # Never inside a heading, code or another link.
    for heading in re.findall(r"<h[1-6][^>]*>.*?</h[1-6]>", prose, re.DOTALL):
        assert "term-link" not in heading
    for code in re.findall(r"<code[^>]*>.*?</code>", prose, re.DOTALL):
        assert "term-link" not in code


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_search_is_a_shared_page_that_varies_on_hx_request(
    client: TestClient, language: str, headers: dict[str, str]
) -> None:
    query = "busbw" if language == "en" else "버스 대역폭"
    response = client.get(f"/{language}/search", params={"q": query}, headers=headers | IDENTITY)
    assert response.status_code == 200
    assert response.headers["cache-control"] == SHARED_PAGE
    assert re.fullmatch(r'"[0-9a-f]{20}"', response.headers["etag"])
    assert "hx-request" in vary(response)
    assert response.headers.get_list("set-cookie") == []
    again = client.get(f"/{language}/search", params={"q": query}, headers=headers | IDENTITY)
    assert again.content == response.content
    if headers:
        assert response.text.lstrip().startswith('<div id="search-results"')
        assert "<html" not in response.text
    else:
        assert_clean(response.text)
        assert '<div id="search-results"' in response.text
        assert 'hx-get="/' + language + '/search"' in response.text


def test_a_result_names_its_section_links_to_its_heading_and_marks_the_match(client: TestClient) -> None:
    html = client.get("/en/search", params={"q": "oversubscription"}).text
    hits = html[html.index('<ol class="search-hits">') :]
    first = hits[: hits.index("</li>")]
    assert re.search(r'href="/en/(guides/infiniband#fat-tree-arithmetic|glossary#term-oversubscription)"', first)
    assert "<mark>Oversubscription</mark>" in hits or "<mark>oversubscription</mark>" in hits


def test_a_korean_query_inside_a_longer_word_finds_it(client: TestClient) -> None:
    html = client.get("/ko/search", params={"q": "서브스크립"}).text
    assert 'href="/ko/guides/infiniband#fat-tree-arithmetic"' in html
    assert "<mark>서브스크립</mark>" in html


@pytest.mark.parametrize(
    "query",
    ["", " ", "x" * 10_000, "busbw\x00\x07\x1b[31m", "\u202e\u200bnvlink", "%", "<script>alert(1)</script>", "\ud7ff"],
    ids=["empty", "space", "ten-thousand", "control", "format", "percent", "markup", "edge"],
)
@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_bad_queries_get_a_page_not_an_error(client: TestClient, query: str, headers: dict[str, str]) -> None:
    response = client.get("/en/search", params={"q": query}, headers=headers)
    assert response.status_code == 200
    assert "<script>alert" not in response.text
    assert "\x00" not in response.text
    assert "\x1b" not in response.text
    if len(query) > 200:
        assert "it was shortened to the first 200" in response.text


def test_an_undecodable_query_string_gets_a_page(client: TestClient) -> None:
    assert client.get("/en/search?q=%ff%fe%00").status_code == 200
    assert client.get("/en/search?q=a&q=b").status_code == 200


@pytest.mark.parametrize(
    ("language", "query", "term"), [("en", "infinibnad", "InfiniBand"), ("ko", "팻트리즈", "팻 트리")]
)
def test_a_query_that_matches_nothing_suggests_glossary_terms(
    client: TestClient, language: str, query: str, term: str
) -> None:
    html = client.get(f"/{language}/search", params={"q": query}).text
    assert "search-hits" not in html
    suggestions = html[html.index('class="search-suggestions"') :]
    assert f'?q={quote(term)}">{term}</a>' in suggestions.replace("%20", "%20")


def test_nonsense_still_suggests_terms(client: TestClient) -> None:
    html = client.get("/en/search", params={"q": "qqqqzzzz"}).text
    assert 'class="search-suggestions"' in html
    assert "/en/glossary#term-nvlink" in html


def test_the_query_is_not_logged(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    client.get("/ko/")  # a learner, with a learner cookie
    with caplog.at_level(logging.DEBUG):
        client.get("/en/search", params={"q": "secretquerytext"})
        client.get("/en/search", params={"q": "secretquerytext"}, headers=HX)
    server_side = [record for record in caplog.records if not record.name.startswith("httpx")]  # not the client's
    assert any("secretquerytext" in record.getMessage() for record in caplog.records), "the capture sees queries"
    assert not [record for record in server_side if "secretquerytext" in record.getMessage()]


def test_the_language_switch_keeps_the_query(client: TestClient) -> None:
    html = client.get("/en/search", params={"q": "fat tree"}).text
    assert 'href="/ko/search?q=fat+tree"' in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_offers_the_search_and_an_opensearch_description(client: TestClient, language: str) -> None:
    page = parse(client.get(f"/{language}/guides/nvlink").text)
    (form,) = page.find("form", class_="site-search")
    assert form["action"] == f"/{language}/search"
    assert form["method"] == "get"
    (link,) = page.find("link", rel="search")
    assert link["type"] == "application/opensearchdescription+xml"
    response = client.get(link["href"] or "")
    assert response.headers["content-type"].startswith("application/opensearchdescription+xml")
    tree = ElementTree.fromstring(response.content)
    namespace = {"o": "http://a9.com/-/spec/opensearch/1.1/"}
    templates = [url.get("template") for url in tree.findall("o:Url", namespace) if url.get("type") == "text/html"]
    assert templates == [f"http://testserver/{language}/search?q={{searchTerms}}"]


def test_the_sitemap_lists_the_glossary_with_hreflang(client: TestClient) -> None:
    tree = ElementTree.fromstring(client.get("/sitemap.xml").content)
    namespaces = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    for url in tree.findall("s:url", namespaces):
        location = url.findtext("s:loc", namespaces=namespaces)
        if location and location.endswith("/glossary"):
            alternates = {link.get("hreflang"): link.get("href") for link in url.findall("x:link", namespaces)}
            assert alternates == {lang: f"http://testserver/{lang}/glossary" for lang in LANGUAGES}
    locations = {url.findtext("s:loc", namespaces=namespaces) for url in tree.findall("s:url", namespaces)}
    assert {f"http://testserver/{lang}/glossary" for lang in LANGUAGES} <= locations
