"""What employers and wallets look for, and what a learner sees before the name is final: the badge art (SVG and
PNG, in the credential and on the page), skills and criteria, a link preview that fills its frame, LinkedIn with
the issuer's organization id, the printed QR code checked offline with OpenSSL, and the claim form's preview of
the printed name."""

from __future__ import annotations

import asyncio
import html
import io
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from PIL import Image, ImageChops

from app.certificates.models import Certificate
from tests.conftest import SettingsFactory
from tests.web.html import parse
from tests.web.quizzes import attempt_of, certificate_app, right_answer, start_api_attempt, state_of, table_counts

SAME_ORIGIN = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
HTMX = SAME_ORIGIN | {"HX-Request": "true"}


def build(tmp_path: Path, make_settings: SettingsFactory, linkedin_organization_id: str | None = None) -> FastAPI:
    return certificate_app(tmp_path, make_settings, linkedin_organization_id=linkedin_organization_id)


@pytest.fixture
def app(tmp_path: Path, make_settings: SettingsFactory) -> Iterator[FastAPI]:
    application = build(tmp_path, make_settings)
    yield application
    state_of(application).database.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def issue(app: FastAPI, name: str, lang: str = "en") -> str:
    return asyncio.run(state_of(app).certificates.issue(name, None, lang)).id


def achievement(client: TestClient, certificate_id: str) -> dict[str, Any]:
    credential = client.get(f"/c/{certificate_id}.json").json()
    found: dict[str, Any] = credential["credentialSubject"]["achievement"]
    return found


def texts(page: str, css_class: str) -> list[str]:
    """The text of each element whose class is exactly `css_class` (no nested elements in it)."""
    pattern = rf'<(\w+)[^>]* class="{css_class}"[^>]*>(.*?)</\1>'
    return [html.unescape(text) for _tag, text in re.findall(pattern, page, re.DOTALL)]


def test_the_credential_names_the_badge_skills_and_criteria_in_its_language(app: FastAPI, client: TestClient) -> None:
    english, korean = achievement(client, issue(app, "Ada Lovelace")), achievement(client, issue(app, "김민준", "ko"))
    for found in (english, korean):
        assert found["image"] == {
            "id": "http://testserver/issuer/badge.png",
            "type": "Image",
            "caption": found["image"]["caption"],
        }
        assert {"NVLink", "InfiniBand", "NVL72", "NCCL"} <= set(found["tag"])
        assert "final exam" in str(found["criteria"]) or "최종 시험" in str(found["criteria"])
    assert "Collective communication" in english["tag"]
    assert "집합 통신" in korean["tag"]
    assert str(korean["image"]["caption"]).endswith("배지")


def test_the_badge_is_served_as_svg_and_png_at_stable_urls(client: TestClient) -> None:
    svg = client.get("/issuer/badge.svg")
    assert svg.status_code == 200
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.headers["access-control-allow-origin"] == "*"
    assert svg.content.startswith(b"<svg")
    assert b"<script" not in svg.content
    png = client.get("/issuer/badge.png")
    assert png.status_code == 200
    assert png.headers["content-type"] == "image/png"
    image = Image.open(io.BytesIO(png.content))
    assert image.size == (600, 600)
    centre = image.convert("RGBA").getpixel((300, 300))
    assert isinstance(centre, tuple)
    assert centre[3] == 255
    assert client.get("/issuer/badge.gif").status_code in (404, 422)


def test_the_page_shows_the_badge_and_the_skills(app: FastAPI, client: TestClient) -> None:
    certificate_id = issue(app, "김민준", "ko")
    page = client.get(f"/c/{certificate_id}", headers={"Accept-Language": "ko"}).text
    assert parse(page).find("img", class_="certificate-badge", src="/issuer/badge.svg", alt="과정 배지")
    skills = re.findall(r"<li>([^<]*)</li>", page.split('class="certificate-skills"', 1)[1].split("</ul>", 1)[0])
    assert skills[:1] == ["GPU 인터커넥트"]
    assert "InfiniBand" in skills


def test_the_link_preview_fills_its_frame(app: FastAPI, client: TestClient) -> None:
    certificate_id = issue(app, "Ada Lovelace")
    image = Image.open(io.BytesIO(client.get(f"/c/{certificate_id}.png").content)).convert("RGB")
    assert image.size == (1200, 630)
    paper = Image.new("RGB", image.size, (251, 251, 248))
    drawn = ImageChops.difference(image, paper).convert("L").point(lambda value: 255 if value > 24 else 0)

    def inked(box: tuple[int, int, int, int]) -> float:
        region = drawn.crop(box)
        histogram = region.histogram()
        return histogram[255] / (region.width * region.height)

    assert inked((740, 80, 1140, 480)) > 0.25  # the badge fills the right
    assert inked((60, 180, 700, 320)) > 0.03  # the name, large, at the left
    assert image.getpixel((8, 600)) != image.getpixel((8, 300))  # a band across the bottom ...
    assert inked((60, 555, 1140, 615)) > 0.03  # ... with the address in it
    assert inked((0, 0, 1200, 24)) > 0.9  # and the one at the top


def linkedin_query(client: TestClient, certificate_id: str) -> dict[str, list[str]]:
    links = [link for link in parse(client.get(f"/c/{certificate_id}").text).links() if "linkedin.com" in link]
    assert len(links) == 1
    assert links[0].startswith("https://www.linkedin.com/profile/add?")
    return parse_qs(urlsplit(links[0]).query)


def test_linkedin_names_the_organization_by_its_id_when_configured(
    app: FastAPI, client: TestClient, tmp_path: Path, make_settings: SettingsFactory
) -> None:
    plain = linkedin_query(client, issue(app, "Ada Lovelace"))
    assert plain["organizationName"] == ["Interconnects"]
    assert "organizationId" not in plain
    (tmp_path / "other").mkdir()
    configured = build(tmp_path / "other", make_settings, linkedin_organization_id="1337042")
    try:
        with TestClient(configured) as other:
            query = linkedin_query(other, issue(configured, "Grace Hopper"))
    finally:
        state_of(configured).database.dispose()
    assert query["organizationId"] == ["1337042"]
    assert "organizationName" not in query
    assert query["startTask"] == ["CERTIFICATION_NAME"]
    with pytest.raises(ValueError, match="LINKEDIN_ORGANIZATION_ID"):
        make_settings(linkedin_organization_id="our-page")


@pytest.mark.skipif(shutil.which("openssl") is None, reason="OpenSSL's command line checks the QR summary")
def test_the_pages_recipe_checks_the_printed_qr_code_offline(app: FastAPI, client: TestClient, tmp_path: Path) -> None:
    certificate_id = issue(app, "김민준", "ko")
    page = client.get(f"/c/{certificate_id}").text
    recipes = [html.unescape(code) for code in re.findall(r"<code>(.*?)</code>", page, re.DOTALL)]
    pem = next(recipe for recipe in recipes if recipe.startswith("curl -fsS"))
    pem = pem[pem.index("cat > issuer.pem") : pem.index("EOF\n", pem.index("<<'EOF'") + 8) + 4]
    qr = next(recipe for recipe in recipes if recipe.startswith("FRAGMENT="))
    with state_of(app).database.session() as session:
        row = session.get(Certificate, certificate_id)
        assert row is not None
        assert f"FRAGMENT='{row.qr_payload}'" in qr  # this certificate's own summary, as its QR code holds it
    result = subprocess.run(["bash", "-c", pem + qr], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "Signature Verified Successfully" in result.stdout
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert (summary["i"], summary["n"]) == (certificate_id, "김민준")
    forged = qr.replace(
        row.qr_payload, row.qr_payload.replace(row.qr_payload[5], "A" if row.qr_payload[5] != "A" else "B", 1)
    )
    failed = subprocess.run(["bash", "-c", pem + forged], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert "Signature Verified Successfully" not in failed.stdout


def pass_exam(app: FastAPI, client: TestClient, lang: str = "en") -> None:
    started = start_api_attempt(client, "exam", lang)
    attempt = attempt_of(app, client, started["attempt_id"])
    for drawn in attempt.questions:
        assert client.post(f"/api/v1/attempts/{attempt.id}/answers", json=right_answer(drawn)).status_code == 200
    assert client.post(f"/api/v1/attempts/{attempt.id}/finish").json()["passed"]


def test_the_claim_form_previews_the_printed_name_live_and_without_script(app: FastAPI, client: TestClient) -> None:
    pass_exam(app, client, "ko")
    form = parse(client.get("/ko/certificate").text)
    assert form.find("input", id="claim-name", **{"hx-post": "/ko/certificate/preview"})
    assert form.find("button", formaction="/ko/certificate/preview")  # the same, without script
    assert "claim-preview" in form.ids

    live = client.post("/ko/certificate/preview", data={"name": "  김  민준 "}, headers=HTMX)
    assert live.status_code == 200
    assert live.headers["vary"] == "HX-Request"
    assert live.text.startswith('<div id="claim-preview"') or '<div id="claim-preview"' in live.text[:300]
    assert "<html" not in live.text
    assert texts(live.text, "certificate-preview-name") == ["김 민준"]
    assert "정리했습니다" in parse(live.text).text  # it says the spaces were tidied

    filler = client.post("/ko/certificate/preview", data={"name": "\u3164"}, headers=HTMX).text
    assert texts(filler, "certificate-preview-name") == []
    assert "한글 채움 문자" in parse(filler).text
    empty = client.post("/ko/certificate/preview", data={"name": ""}, headers=HTMX).text
    assert 'class="certificate-preview" aria-live="polite"></div>' in empty

    typed = {"name": "Ada\u00a0 Lovelace", "email": "ada@example.com"}
    page = client.post("/ko/certificate/preview", data=typed, headers=SAME_ORIGIN)
    assert page.status_code == 200
    assert texts(page.text, "certificate-preview-name") == ["Ada Lovelace"]
    whole = parse(page.text)
    assert whole.find("input", id="claim-name", value="Ada\u00a0 Lovelace")
    assert whole.find("input", id="claim-email", value="ada@example.com")
    assert table_counts(app)["certificates"] == 0  # a preview issues nothing


def test_the_preview_without_a_passed_exam_is_refused_like_the_claim(client: TestClient) -> None:
    refused = client.post("/en/certificate/preview", data={"name": "Ada"}, headers=SAME_ORIGIN)
    assert refused.status_code == 403
    assert "passed the final exam" in parse(refused.text).text
    assert (
        client.post(
            "/en/certificate/preview", data={"name": "Ada"}, headers={"Origin": "https://evil.example"}
        ).status_code
        == 403
    )
