"""The site as its visitors meet it in production: through nginx (TLS, cache), on two app hosts, on PostgreSQL."""

from __future__ import annotations

import re
import secrets
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from sqlalchemy import select

from app.newsletter.models import Subscriber
from deploy.local_stack import Stack
from tests.deploy.site import CERTIFICATE_LOCATION, Oracle, Site, pass_exam
from tests.mailserver import MailServer


def test_a_learner_reads_practises_passes_claims_verifies_and_subscribes(
    site: Site, oracle: Oracle, mail_server: MailServer
) -> None:
    with site.client() as learner:
        # Read: a chapter, over TLS, from the app or nginx's cache.
        chapter = learner.get("/en/guides/nvlink")
        assert chapter.status_code == 200
        assert "NVLink" in chapter.text
        assert chapter.headers["x-cache-status"] in ("MISS", "HIT", "EXPIRED", "UPDATING", "REVALIDATED", "STALE")
        assert chapter.headers["strict-transport-security"].startswith("max-age=")  # the app knows it is https

        # Practise: a chapter quiz answers at once.
        practice = learner.post("/api/v1/quizzes/nvlink/attempts?lang=en")
        assert practice.status_code == 201, practice.text
        practice_id = practice.json()["attempt_id"]
        first = oracle.right_answers(learner, practice_id)[0]
        answered = learner.post(f"/api/v1/attempts/{practice_id}/answers", json=first)
        assert answered.status_code == 200
        assert answered.json()["correct"] is True
        assert learner.post(f"/api/v1/attempts/{practice_id}/answers", json=first).status_code == 409

        # Pass the exam, claim the certificate from its form, as a browser posts it.
        pass_exam(learner, oracle)
        claimed = site.post_form(learner, "/en/certificate", "/en/certificate", {"name": "Ada Lovelace"})
        assert claimed.status_code == 303, claimed.text
        match = CERTIFICATE_LOCATION.search(claimed.headers["location"])
        assert match is not None, claimed.headers["location"]
        certificate_id = match.group(1)

    # Verify: anyone, without the learner's cookie, on the page and through the API.
    with site.client("127.0.0.9") as verifier:
        page = verifier.get(f"/c/{certificate_id}", headers={"Accept-Language": "en"})
        assert page.status_code == 200
        assert "Valid certificate" in page.text
        assert "Ada Lovelace" in page.text
        credential = verifier.get(f"/c/{certificate_id}.json").json()
        verdict = verifier.post("/api/v1/credentials/verify", json=credential).json()
        assert (verdict["valid"], verdict["signature"], verdict["status"]) == (True, "valid", "active")
        jwt = verifier.get(f"/c/{certificate_id}.jwt").text.strip()
        assert verifier.post("/api/v1/credentials/verify", json={"jwt": jwt}).json()["valid"] is True

    # Subscribe and confirm: the mail goes out through the SMTP relay; its link confirms.
    address = f"reader-{secrets.token_hex(4)}@example.org"
    with site.client("127.0.0.10") as reader:
        signed_up = site.post_form(reader, "/newsletter", "/newsletter", {"email": address, "language": "en"})
        assert signed_up.status_code == 200, signed_up.text
        received = mail_server.to(address)
        assert len(received) == 1
        body = received[0].get_body(("plain",))
        assert body is not None
        link = re.search(re.escape(site.url) + r"/newsletter/confirm/[A-Za-z0-9_-]{43}", body.get_content())
        assert link is not None, body.get_content()
        path = link.group(0).removeprefix(site.url)
        confirmed = site.post_form(reader, path, path, {})
        assert confirmed.status_code == 200, confirmed.text
    with oracle.database.session() as session:
        status = session.scalar(select(Subscriber.status).where(Subscriber.email == address))
    assert status == "confirmed"


def test_consecutive_requests_land_on_both_hosts(site: Site) -> None:
    probe = secrets.token_hex(4)
    with site.client() as visitor:
        for number in range(12):
            assert visitor.get(f"/healthz?probe={probe}-{number}").json() == {"status": "ok", "database": "ok"}
    per_host = {
        name: sum(site.app_requests(f"GET /healthz?probe={probe}-{number} HTTP/1.1")[name] for number in range(12))
        for name in ("host-a", "host-b")
    }
    assert sum(per_host.values()) == 12
    assert per_host["host-a"] >= 3, per_host
    assert per_host["host-b"] >= 3, per_host


def test_n_readers_of_a_shared_page_cost_the_app_one_request(site: Site) -> None:
    readers = 12
    path = "/ko/guides/nvswitch"

    def read(number: int) -> httpx.Response:
        with site.client(f"127.0.1.{number + 1}") as reader:  # a cookie jar and an address of its own
            reader.get("/ko/")  # a learner cookie first: the shared page must not depend on it
            return reader.get(path)

    with ThreadPoolExecutor(readers) as pool:  # arriving together: nginx's cache lock lets one through
        responses = list(pool.map(read, range(readers)))
    assert {response.status_code for response in responses} == {200}
    assert len({response.content for response in responses}) == 1
    assert sorted(response.headers["x-cache-status"] for response in responses).count("MISS") == 1
    assert responses[0].headers["cache-control"].startswith("public")
    assert "set-cookie" not in responses[0].headers
    assert sum(site.app_requests(f"GET {path} HTTP/1.1").values()) == 1

    with site.client() as later:  # and later readers: from the cache, revalidated by ETag from the client too
        again = later.get(path)
        assert again.headers["x-cache-status"] == "HIT"
        etag = again.headers["etag"]
        unchanged = later.get(path, headers={"If-None-Match": etag})
        assert unchanged.status_code == 304
    assert sum(site.app_requests(f"GET {path} HTTP/1.1").values()) == 1


def test_gzip_is_passed_through_and_each_coding_is_its_own_cache_entry(site: Site) -> None:
    path = "/en/glossary"
    with site.client() as visitor:
        plain = visitor.get(path, headers={"Accept-Encoding": "identity"})
        zipped = visitor.get(path, headers={"Accept-Encoding": "gzip"})
        zipped_again = visitor.get(path, headers={"Accept-Encoding": "gzip, deflate, br"})
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == plain.content  # httpx decodes: the same page
    assert zipped.headers["etag"] != plain.headers["etag"]
    assert zipped_again.headers["x-cache-status"] == "HIT"  # another spelling of "gzip", the same entry
    with site.client() as htmx:  # the fragment an HTMX swap asks for is an entry of its own, too
        fragment = htmx.get(path, headers={"HX-Request": "true"})
        fragment_again = htmx.get(path, headers={"HX-Request": "true"})
        page_again = htmx.get(path, headers={"Accept-Encoding": "identity"})
    assert fragment_again.headers["x-cache-status"] == "HIT"
    assert fragment_again.content == fragment.content
    assert page_again.headers["x-cache-status"] == "HIT"
    assert page_again.content == plain.content
    assert sum(site.app_requests(f"GET {path} HTTP/1.1").values()) == 3


def test_per_learner_pages_are_never_cached(site: Site) -> None:
    before = sum(site.app_requests("GET /en/ HTTP/1.1").values())
    with site.client() as learner:
        first = learner.get("/en/")
        second = learner.get("/en/")
        started = learner.post("/api/v1/quizzes/nvlink/attempts?lang=en").json()["attempt_id"]
        attempt_page = f"/en/attempts/{started}"
        mine = learner.get(attempt_page)
    with site.client() as stranger:
        theirs = stranger.get(attempt_page)
    for response in (first, second, mine):
        assert response.status_code == 200
        assert "no-store" in response.headers["cache-control"]
        assert response.headers["x-cache-status"] != "HIT"
    assert theirs.status_code == 404  # the same URL, another learner: never the first learner's page
    assert sum(site.app_requests("GET /en/ HTTP/1.1").values()) == before + 2


def test_static_files_come_from_disk_immutable_with_their_gzip(site: Site, stack: Stack) -> None:
    with site.client() as visitor:
        page = visitor.get("/en/glossary").text
        css = re.search(r'href="(/static/[0-9a-f]{12}/css/site\.css)"', page)
        assert css is not None
        served = visitor.get(css.group(1), headers={"Accept-Encoding": "gzip"})
    assert served.status_code == 200
    assert served.headers["x-cache-status"] == "STATIC"  # nginx answered from disk, the app never saw it
    assert served.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert served.headers["content-encoding"] == "gzip"
    assert served.headers["content-type"].startswith("text/css")
    assert served.content == (Path(stack.directory) / "public" / css.group(1).lstrip("/")).read_bytes()
    assert sum(site.app_requests(f"GET {css.group(1)} HTTP/1.1").values()) == 0


def test_the_clients_address_reaches_the_rate_limits(site: Site) -> None:
    """Exam starts are limited per client address (12 a day). Through nginx, a client that sends its own
    X-Forwarded-For still counts as the address nginx saw; a neighbour at another address is unaffected."""
    statuses = []
    for number in range(13):
        with site.client("127.0.2.5") as learner:  # a new learner each time: only the address is shared
            forged = {"X-Forwarded-For": f"198.51.100.{number}"}
            statuses.append(learner.post("/api/v1/quizzes/exam/attempts?lang=en", headers=forged))
    assert [response.status_code for response in statuses] == [201] * 12 + [429]
    assert int(statuses[-1].headers["retry-after"]) > 0
    with site.client("127.0.2.6") as neighbour:
        assert neighbour.post("/api/v1/quizzes/exam/attempts?lang=en").status_code == 201
