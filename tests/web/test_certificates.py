"""Certificates over HTTP: the claim step, the public verification page and its downloads, the issuer's keys and
status lists, the verify API, and a hostile name through every output."""

from __future__ import annotations

import base64
import html
import io
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.certificates.models import Certificate
from app.certificates.service import CertificatePolicy
from app.ratelimit import Limit
from tests.conftest import SettingsFactory
from tests.unit.certificates.helpers import revoked_in_list
from tests.web.html import assert_clean, has_hangul, parse
from tests.web.quizzes import attempt_of, certificate_app, right_answer, start_api_attempt, state_of, table_counts

SAME_ORIGIN = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
HOSTILE = "<img src=x onerror=alert(1)>\"' & </script><svg onload=alert(2)>) Tj ET 김"


@pytest.fixture
def app(tmp_path: Path, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = certificate_app(tmp_path, make_settings)
    yield application
    state_of(application).database.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def pass_exam(app: FastAPI, client: TestClient, lang: str = "en") -> str:
    started = start_api_attempt(client, "exam", lang)
    attempt = attempt_of(app, client, started["attempt_id"])
    for drawn in attempt.questions:
        assert client.post(f"/api/v1/attempts/{attempt.id}/answers", json=right_answer(drawn)).status_code == 200
    finished = client.post(f"/api/v1/attempts/{attempt.id}/finish").json()
    assert finished["passed"]
    return attempt.id


def claim(client: TestClient, name: str, email: str = "", lang: str = "en") -> str:
    response = client.post(
        f"/{lang}/certificate", data={"name": name, "email": email}, headers=SAME_ORIGIN, follow_redirects=False
    )
    assert response.status_code == 303, response.text
    match = re.fullmatch(rf"/c/([0-9A-Z]{{26}})\?lang={lang}", response.headers["location"])
    assert match is not None, response.headers["location"]
    return match.group(1)


def issue(app: FastAPI, name: str, lang: str = "en") -> str:
    import asyncio

    return asyncio.run(state_of(app).certificates.issue(name, None, lang)).id


def test_claiming_needs_a_passed_exam_and_says_so_in_the_learners_language(client: TestClient) -> None:
    for lang, words in (("en", "passed the final exam"), ("ko", "최종 시험에 합격한")):
        page = client.get(f"/{lang}/certificate")
        assert page.status_code == 403
        assert words in parse(page.text).text
        posted = client.post(f"/{lang}/certificate", data={"name": "Ada Lovelace"}, headers=SAME_ORIGIN)
        assert posted.status_code == 403
        assert words in parse(posted.text).text
    refused_name = client.post("/en/certificate", data={"name": "Ada\u202e"}, headers=SAME_ORIGIN)
    assert refused_name.status_code == 403  # not being eligible is said first
    assert "passed the final exam" in parse(refused_name.text).text
    assert (
        client.post("/en/certificate", data={"name": "Ada"}, headers={"Sec-Fetch-Site": "cross-site"}).status_code
        == 403
    )


def test_pass_claim_and_open_the_verification_page(app: FastAPI, client: TestClient) -> None:
    attempt_id = pass_exam(app, client)
    result = client.get(f"/en/attempts/{attempt_id}/result")
    assert "/en/certificate" in parse(result.text).links()
    form = client.get("/en/certificate")
    assert form.status_code == 200
    assert form.headers["cache-control"].startswith("private, no-store") or "no-store" in form.headers["cache-control"]
    certificate_id = claim(client, "  Ada   Lovelace ", "ada@example.org")
    assert claim(client, "Ada Lovelace", "ADA@example.org") == certificate_id  # the same claim: the same certificate
    assert state_of(app).certificates is not None

    page = client.get(f"/c/{certificate_id}", headers={"Accept-Language": "en"})
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-cache"
    assert page.headers["x-robots-tag"] == "noindex"
    assert "set-cookie" not in page.headers
    assert_clean(page.text)
    parsed = parse(page.text)
    assert parsed.find("meta", name="robots", content="noindex, nofollow")
    assert parsed.find("link", rel="canonical", href=f"http://testserver/c/{certificate_id}")
    assert parsed.find("section", id="certificate-status", class_="certificate-status certificate-status-valid")
    text = parsed.text
    for expected in ("Valid certificate", "Ada Lovelace", "Interconnects", certificate_id, "SHA256:", "100%"):
        assert expected in text
    links = parsed.links()
    for suffix in (".pdf", ".json", ".jwt"):
        assert f"/c/{certificate_id}{suffix}" in links
    linkedin = next(link for link in links if link.startswith("https://www.linkedin.com/profile/add?"))
    assert f"certId={certificate_id}" in linkedin
    assert "openssl pkeyutl -verify" in text
    assert parsed.find("input", id="share-url", value=f"http://testserver/c/{certificate_id}")
    assert parsed.find("meta", property="og:image", content=f"http://testserver/c/{certificate_id}.png")
    claimed = client.get("/en/certificate")
    assert f"/c/{certificate_id}?lang=en" in parse(claimed.text).links()


def test_the_page_speaks_the_visitors_language(app: FastAPI, client: TestClient) -> None:
    certificate_id = issue(app, "Grace Hopper", "en")
    korean = client.get(f"/c/{certificate_id}", headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    assert "유효한 수료증" in korean.text
    assert parse(korean.text).find("html", lang="ko")
    english = client.get(f"/c/{certificate_id}?lang=en", headers={"Accept-Language": "ko"})
    assert "Valid certificate" in english.text
    switched = client.get(f"/ko/c/{certificate_id}", follow_redirects=False)
    assert switched.headers["location"] == f"/c/{certificate_id}?lang=ko"
    assert f"/ko/c/{certificate_id}" in parse(english.text).links()  # the language switcher stays on the page


def test_ids_are_case_insensitive_and_every_miss_is_the_same_404(app: FastAPI, client: TestClient) -> None:
    certificate_id = issue(app, "Grace Hopper")
    assert client.get(f"/c/{certificate_id.lower()}").status_code == 200
    assert client.get(f"/c/{certificate_id.lower()}.json").status_code == 200
    misses = [client.get(f"/c/{raw}") for raw in ("0" * 26, "not-an-id", "8" + "0" * 25, "%3Cscript%3E", "x" * 300)]
    assert {response.status_code for response in misses} == {404}
    assert len({response.content for response in misses}) == 1
    assert "No certificate has this ID: check it for typing errors" in misses[0].text
    assert "A forged ID looks like this too." in misses[0].text
    korean = client.get("/c/" + "0" * 26, headers={"accept-language": "ko"})
    assert korean.status_code == 404
    assert "위조된 ID" in korean.text
    assert client.get("/c/" + "0" * 26 + ".pdf").content == client.get("/c/nope.pdf").content
    assert client.head(f"/c/{certificate_id}").status_code == 200


def test_lookups_are_refused_for_an_address_that_guesses_ids(app: FastAPI, client: TestClient) -> None:
    certificate_id = issue(app, "Grace Hopper")
    state_of(app).certificates.policy = CertificatePolicy(miss_per_client=Limit(3, 600), verify_per_client=Limit(1, 60))
    before = table_counts(app)["rate_limit_slots"]
    assert [client.get(f"/c/{certificate_id}").status_code for _ in range(5)] == [200] * 5
    assert table_counts(app)["rate_limit_slots"] == before  # a known id is only read
    assert [client.get(f"/c/{'1' * 26}").status_code for _ in range(4)] == [404, 404, 404, 429]
    for path in (f"/c/{'2' * 26}", "/c/nope.pdf", f"/c/{'3' * 26}.json"):  # further unknown ids are refused
        refused = client.get(path)
        assert refused.status_code == 429, path
        assert int(refused.headers["retry-after"]) > 0
    for path in (f"/c/{certificate_id}", f"/c/{certificate_id}.json", f"/c/{certificate_id}.pdf"):
        assert client.get(path).status_code == 200, path  # real certificates keep answering that address
    assert [verify(client, {"jwt": "x"}).status_code for _ in range(2)] == [200, 429]


def test_downloads_are_the_stored_bytes_and_readable_by_other_sites(app: FastAPI, client: TestClient) -> None:
    certificate_id = issue(app, "김민준", "ko")
    with state_of(app).database.session() as session:
        row = session.get(Certificate, certificate_id)
        assert row is not None
    document = client.get(f"/c/{certificate_id}.json")
    assert document.content == row.credential.encode()
    assert document.headers["access-control-allow-origin"] == "*"
    assert document.headers["cross-origin-resource-policy"] == "cross-origin"
    token = client.get(f"/c/{certificate_id}.jwt")
    assert token.text == row.jws
    pdf = client.get(f"/c/{certificate_id}.pdf")
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-")
    image = client.get(f"/c/{certificate_id}.png")
    assert image.content.startswith(b"\x89PNG")
    from PIL import Image

    assert Image.open(io.BytesIO(image.content)).size == (1200, 630)
    if shutil.which("pdftotext"):
        printed = pdftotext(pdf.content)
        assert "김민준" in printed
        assert certificate_id in printed
        assert has_hangul(printed.replace("김민준", ""))  # the Korean certificate's own words


def pdftotext(pdf: bytes) -> str:
    return subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()


def test_a_hostile_name_never_becomes_markup(app: FastAPI, client: TestClient) -> None:
    pass_exam(app, client)
    certificate_id = claim(client, HOSTILE)
    page = client.get(f"/c/{certificate_id}")
    assert_clean(page.text)
    parsed = parse(page.text)
    injected = [
        tag
        for tag, attributes in parsed.elements
        if attributes.get("src") == "x" or (tag == "svg" and "onload" in attributes)
    ]
    assert injected == []
    assert HOSTILE in parsed.text
    assert parsed.find("meta", property="og:title", content=f"Certificate: {HOSTILE}")
    svg = re.search(r"<svg[^>]*id=\"certificate-qr\".*?</svg>", page.text, re.DOTALL)
    assert svg is not None
    assert "<img" not in svg.group(0)
    assert html.unescape(re.sub(r".*<title[^>]*>(.*?)</title>.*", r"\1", svg.group(0), flags=re.DOTALL)).endswith(
        HOSTILE
    )
    claim_page = client.get("/en/certificate")
    assert_clean(claim_page.text)
    assert not [tag for tag, attributes in parse(claim_page.text).elements if attributes.get("src") == "x"]
    assert (
        json.loads(client.get(f"/c/{certificate_id}.json").text)["credentialSubject"]["identifier"][0]["identityHash"]
        == HOSTILE
    )
    if shutil.which("pdftotext"):
        assert HOSTILE.split("<svg")[0] in " ".join(pdftotext(client.get(f"/c/{certificate_id}.pdf").content).split())
    assert client.get(f"/c/{certificate_id}.png").content.startswith(b"\x89PNG")


def test_a_refused_name_keeps_the_form_and_explains_in_the_learners_language(app: FastAPI, client: TestClient) -> None:
    pass_exam(app, client, "ko")
    response = client.post("/ko/certificate", data={"name": "Ada\u202eLovelace"}, headers=SAME_ORIGIN)
    assert response.status_code == 422
    assert "텍스트 방향 제어 문자" in parse(response.text).text
    assert_clean(response.text)
    assert parse(response.text).find("input", id="claim-name", **{"aria-invalid": "true"})


def test_a_name_correction_revokes_the_old_page_and_links_to_the_new_one(app: FastAPI, client: TestClient) -> None:
    pass_exam(app, client)
    first = claim(client, "Ada Lovelase")
    second = claim(client, "Ada Lovelace")
    assert first != second
    old = client.get(f"/c/{first}")
    assert parse(old.text).find(
        "section", id="certificate-status", class_="certificate-status certificate-status-revoked"
    )
    assert "Replaced by a certificate with a corrected name." in parse(old.text).text
    assert f"/c/{second}" in parse(old.text).links()


def test_revocation_shows_on_the_page_in_the_api_and_in_the_status_list(app: FastAPI, client: TestClient) -> None:
    import asyncio

    certificate_id = issue(app, "Grace Hopper")
    document = client.get(f"/c/{certificate_id}.json").json()
    index = int(document["credentialStatus"]["statusListIndex"])
    listed = client.get("/status/1")
    assert listed.headers["cache-control"] == "public, max-age=60"
    assert not revoked_in_list(listed.content, index)
    asyncio.run(state_of(app).certificates.revoke(certificate_id, "Issued by mistake"))
    assert revoked_in_list(client.get("/status/1").content, index)
    page = parse(client.get(f"/c/{certificate_id}").text)
    assert "Revoked certificate" in page.text
    assert "Issued by mistake" in page.text
    verdict = client.post("/api/v1/credentials/verify", json=document).json()
    assert (verdict["valid"], verdict["signature"], verdict["status"]) == (False, "valid", "revoked")
    assert client.get("/status/2").status_code == 404
    assert client.get("/status/x").status_code == 404


def test_a_changed_stored_credential_shows_an_invalid_signature(app: FastAPI, client: TestClient) -> None:
    certificate_id = issue(app, "Grace Hopper")
    with state_of(app).database.session() as session:
        row = session.get(Certificate, certificate_id)
        assert row is not None
        changed = row.credential.replace("Grace Hopper", "Grace Hoppers")
        session.execute(update(Certificate).where(Certificate.id == certificate_id).values(credential=changed))
        session.commit()
    page = parse(client.get(f"/c/{certificate_id}").text)
    assert page.find("section", id="certificate-status", class_="certificate-status certificate-status-invalid")
    assert "Invalid signature" in page.text


def verify(client: TestClient, body: Any, **headers: str) -> Any:
    return client.post("/api/v1/credentials/verify", json=body, headers=headers)


def test_the_verify_api_names_the_failing_check(app: FastAPI, client: TestClient) -> None:
    certificate_id = issue(app, "Grace Hopper")
    document = client.get(f"/c/{certificate_id}.json").json()
    token = client.get(f"/c/{certificate_id}.jwt").text
    for body in (document, {"jwt": token}):
        response = verify(client, body)
        assert response.status_code == 200
        assert response.headers["cache-control"] == "no-store"
        verdict = response.json()
        assert (verdict["valid"], verdict["signature"], verdict["status"]) == (True, "valid", "active")
        assert all(check["passed"] for check in verdict["checks"])
    tampered = json.loads(json.dumps(document).replace("Grace Hopper", "Grace Hoppers"))
    verdict = verify(client, tampered).json()
    assert (verdict["valid"], verdict["signature"]) == (False, "invalid")
    assert [check["name"] for check in verdict["checks"] if not check["passed"]] == ["signature"]
    header, payload, signature = token.split(".")
    forged = verify(client, {"jwt": f"{header}.{payload[:-4]}AAAA.{signature}"}).json()
    assert not forged["valid"]
    unknown_key = json.loads(
        json.dumps(document).replace(document["proof"]["verificationMethod"], "did:web:testserver#nope")
    )
    response = verify(client, unknown_key)
    assert response.status_code == 200
    assert ("key", False) in [(check["name"], check["passed"]) for check in response.json()["checks"]]
    foreign = verify(client, {**document, "issuer": "did:web:elsewhere.example"}).json()
    assert ("issuer", False) in [(check["name"], check["passed"]) for check in foreign["checks"]]
    korean = client.post("/api/v1/credentials/verify?lang=ko", json=tampered).json()
    assert has_hangul(" ".join(check["message"] for check in korean["checks"]))


def test_the_verify_api_refuses_what_is_not_a_json_object(client: TestClient) -> None:
    for content in (b"{not json", b"[1, 2]", b'"a string"', b""):
        response = client.post(
            "/api/v1/credentials/verify", content=content, headers={"content-type": "application/json"}
        )
        assert response.status_code == 422, content
        assert "detail" in response.json()
    assert verify(client, {"jwt": "a.b.c"}).json()["valid"] is False
    assert verify(client, {"jwt": "x"}, Origin="https://evil.example").status_code == 403
    schema = client.get("/openapi.json").json()
    responses = schema["paths"]["/api/v1/credentials/verify"]["post"]["responses"]
    assert {"200", "403", "422", "429"} <= set(responses)


def test_the_issuer_publishes_every_key_as_did_web_and_jwks(app: FastAPI, client: TestClient) -> None:
    issue(app, "Grace Hopper")
    did = client.get("/.well-known/did.json")
    assert did.headers["access-control-allow-origin"] == "*"
    document = did.json()
    assert document["id"] == "did:web:testserver"
    types = sorted(method["type"] for method in document["verificationMethod"])
    assert types == ["JsonWebKey", "Multikey"]
    jwks = client.get("/.well-known/jwks.json").json()
    jwk_method = next(method for method in document["verificationMethod"] if method["type"] == "JsonWebKey")
    assert jwks["keys"] == [jwk_method["publicKeyJwk"]]
    token = client.get(f"/c/{issue(app, 'Ada Lovelace')}.jwt").text
    header = json.loads(__import__("base64").urlsafe_b64decode(token.split(".")[0] + "=="))
    assert header["kid"] == jwks["keys"][0]["kid"]
    profile = client.get("/issuer", headers={"Accept": "application/json"}).json()
    assert profile["id"] == "did:web:testserver"
    assert profile["type"] == ["Profile"]
    page = client.get("/issuer")
    assert "BEGIN PUBLIC KEY" in page.text
    assert_clean(page.text)


def test_the_qr_codes_signed_summary_is_checked_as_a_page_and_as_a_fragment(app: FastAPI, client: TestClient) -> None:
    certificate_id = issue(app, "Grace Hopper")
    with state_of(app).database.session() as session:
        row = session.get(Certificate, certificate_id)
        assert row is not None
        fragment = row.qr_payload
    page = client.get(f"/c/{certificate_id}", params={"qr": fragment})
    assert "The QR code is genuine." in parse(page.text).text
    assert_clean(page.text)
    partial = client.get(f"/c/{certificate_id}", params={"qr": fragment}, headers={"HX-Request": "true"})
    assert partial.text.lstrip().startswith('<div id="qr-check"')
    assert "The QR code is genuine." in partial.text
    assert "HX-Request" in partial.headers["vary"]
    payload, signature = fragment.split(".")
    forged = client.get(
        f"/c/{certificate_id}", params={"qr": f"{payload[:-3]}AAA.{signature}"}, headers={"HX-Request": "true"}
    )
    assert "not genuine" in forged.text
    other = issue(app, "Ada Lovelace")
    elsewhere = client.get(f"/c/{other}", params={"qr": fragment}, headers={"HX-Request": "true"})
    assert "belongs to another certificate" in elsewhere.text


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_the_pages_openssl_recipe_verifies_the_jwt(app: FastAPI, client: TestClient, tmp_path: Path) -> None:
    certificate_id = issue(app, "김민준", "ko")
    page = client.get(f"/c/{certificate_id}").text
    recipe = html.unescape(re.search(r"<code>(curl -fsS .*?)</code>", page, re.DOTALL).group(1))  # type: ignore[union-attr]
    first_line, rest = recipe.split("\n", 1)
    assert first_line == f"curl -fsS http://testserver/c/{certificate_id}.jwt -o certificate.jwt"
    (tmp_path / "certificate.jwt").write_bytes(client.get(f"/c/{certificate_id}.jwt").content)
    result = subprocess.run(["bash", "-c", rest], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "Signature Verified Successfully" in result.stdout


def test_a_page_replayed_from_memory_is_verified_again_on_every_request(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    certificate_id = issue(app, "Grace Hopper")
    service = state_of(app).certificates
    rechecked: list[str] = []
    recheck = service.recheck

    async def counted(raw_id: str) -> Any:
        rechecked.append(raw_id)
        return await recheck(raw_id)

    monkeypatch.setattr(service, "recheck", counted)
    path = f"/c/{certificate_id}"
    original = first_credential(client, certificate_id)
    first = client.get(path)
    again = client.get(path)
    assert rechecked == [certificate_id]  # the second answer came from the page cache, after verifying again
    assert (again.status_code, again.content, again.headers["etag"]) == (200, first.content, first.headers["etag"])
    assert "set-cookie" not in again.headers
    assert again.headers["content-security-policy"] == first.headers["content-security-policy"]
    assert client.head(path).content == b""
    korean = client.get(path, headers={"Accept-Language": "ko"}).text
    assert '<html lang="ko"' in korean  # a language not prepared yet is answered by the app in full
    assert client.get(path, headers={"Accept-Language": "ko"}).text == korean

    asyncio.run(service.revoke(certificate_id, "Issued by mistake"))
    for _ in range(2):  # the first after the change is rendered in full, the next replayed: both revoked
        assert "Revoked certificate" in parse(client.get(path).text).text
    with state_of(app).database.session() as session:
        session.execute(
            update(Certificate)
            .where(Certificate.id == certificate_id)
            .values(credential=first_credential(client, certificate_id).replace("Grace Hopper", "Grace Hoppers"))
        )
        session.commit()
    for _ in range(2):
        assert "Invalid signature" in parse(client.get(path).text).text
    with state_of(app).database.session() as session:  # the credential as issued, but its JWS signature changed
        row = session.get(Certificate, certificate_id)
        assert row is not None
        header, payload, signature = row.jws.split(".")
        session.execute(
            update(Certificate)
            .where(Certificate.id == certificate_id)
            .values(credential=original, jws=f"{header}.{payload}.{signature[:-4]}AAAA")
        )
        session.commit()
    for _ in range(2):  # still revoked, and the page names the JWT's signature as failing
        page = parse(client.get(path).text)
        assert "Revoked certificate" in page.text
        assert "The signature does not match" in page.text
    assert len(rechecked) >= 8


def first_credential(client: TestClient, certificate_id: str) -> str:
    return client.get(f"/c/{certificate_id}.json").text


def test_the_verify_api_refuses_a_name_given_twice_and_odd_digits(app: FastAPI, client: TestClient) -> None:
    """RFC 8785 and I-JSON forbid duplicate names; a reader that keeps the last would verify what another reads
    differently ("identityHash": "Eve Forger", "identityHash": "Ada Lovelace")."""
    certificate_id = issue(app, "Ada Lovelace")
    text = client.get(f"/c/{certificate_id}.json").text
    assert verify(client, json.loads(text)).json()["valid"] is True
    twice = text.replace(
        '"identityHash": "Ada Lovelace"', '"identityHash": "Eve Forger", "identityHash": "Ada Lovelace"'
    )
    assert twice != text
    for lang, words in (("en", "names the same member twice"), ("ko", "같은 이름의 멤버가 두 번")):
        response = client.post(
            f"/api/v1/credentials/verify?lang={lang}",
            content=twice.encode(),
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 200
        verdict = response.json()
        assert (verdict["valid"], verdict["signature"]) == (False, "invalid")
        assert [(check["name"], check["passed"]) for check in verdict["checks"]] == [("format", False)]
        assert words in verdict["checks"][0]["message"]

    token = client.get(f"/c/{certificate_id}.jwt").text
    header, payload, signature = token.split(".")
    decoded = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    doubled = decoded.replace(
        '"identityHash":"Ada Lovelace"', '"identityHash":"Eve Forger","identityHash":"Ada Lovelace"'
    )
    assert doubled != decoded
    forged = base64.urlsafe_b64encode(doubled.encode()).rstrip(b"=").decode()
    verdict = verify(client, {"jwt": f"{header}.{forged}.{signature}"}).json()
    assert verdict["valid"] is False
    assert verdict["checks"][0]["name"] == "format"
    assert "names the same member twice" in verdict["checks"][0]["message"]

    document = json.loads(text)
    for odd in ("²", "١٢", "12 ", "-1", "1" * 10):  # a superscript, Arabic-Indic digits, a space, a sign, too long
        odd_status = {**document, "credentialStatus": {**document["credentialStatus"], "statusListIndex": odd}}
        response = verify(client, odd_status)
        assert response.status_code == 200, odd
        assert response.json()["valid"] is False


def test_home_and_the_exam_page_lead_back_to_the_certificate(app: FastAPI, client: TestClient) -> None:
    for path in ("/en/", "/en/exam"):
        assert "Your certificate" not in client.get(path).text  # nothing to show yet
    pass_exam(app, client)
    for path in ("/en/", "/en/exam"):
        before = parse(client.get(path).text)
        assert "/en/certificate" in before.links()  # passed: the way to claim it
        assert "Your certificate" not in before.text
    certificate_id = claim(client, "Ada Lovelace")
    for path, words in (("/en/", "Your certificate"), ("/ko/exam", "나의 수료증"), ("/en/exam", "Ada Lovelace")):
        page = client.get(path)
        assert page.headers["cache-control"].startswith("no-store") or "no-store" in page.headers["cache-control"]
        parsed = parse(page.text)
        assert words in parsed.text, path
        links = parsed.links()
        assert any(link.startswith(f"/c/{certificate_id}?lang=") for link in links), links
        assert f"/c/{certificate_id}.pdf" in links
        assert any(
            link.startswith("https://www.linkedin.com/profile/add?") and certificate_id in link for link in links
        )
    with TestClient(app) as stranger:  # another learner sees none of it
        assert certificate_id not in stranger.get("/en/").text


def test_the_claim_form_says_the_name_is_final_and_its_limit_matches_its_hint(app: FastAPI, client: TestClient) -> None:
    pass_exam(app, client)
    form = parse(client.get("/en/certificate").text)
    assert form.find("input", id="claim-name", maxlength="100")
    assert "1 to 100 characters" in form.text
    assert "The printed name is final" in form.text
    assert "인쇄되는 이름은 바꿀 수 없습니다" in parse(client.get("/ko/certificate").text).text
