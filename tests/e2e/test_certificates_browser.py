"""The whole certificate in Chromium: pass the final exam (answers computed from the bank, as tests may), claim the
certificate with a Korean name, open the verification link the QR code carries, download the PDF and render it to
a picture (pdftoppm) for people to look at; axe-core clean on the claim and verification pages."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest
from itsdangerous import URLSafeSerializer
from playwright.sync_api import Browser, Page, expect

from app.certificates.models import Certificate
from app.context import RequestContext
from app.db import Database
from tests.e2e.browser import describe, open_page, run_axe, save_screenshot
from tests.servers import INTERCONNECTS_SERVE, running_server
from tests.unit.quiz.helpers import quiz_service
from tests.web.quizzes import right_value

SECRET = "e2e-certificates-" + "k" * 40
NAME = "김민준"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, live_server: str) -> Iterator[tuple[str, Database]]:
    """A server of its own, whose database (SQLite under its VAR_DIR) the test reads for the right answers."""
    var_dir = tmp_path_factory.mktemp("certificates-var")
    with running_server(INTERCONNECTS_SERVE, var_dir, {"SECRET_KEY": SECRET}) as base_url:
        database = Database.from_url(f"sqlite:///{var_dir / 'interconnects.sqlite3'}")
        yield base_url, database
        database.dispose()


def pass_the_exam(page: Page, base_url: str, database: Database) -> None:
    page.goto(f"{base_url}/ko/exam")
    page.locator(".quiz-actions button[type=submit]").click()
    expect(page.locator(".quiz-item").first).to_be_visible()
    attempt_id = page.url.rstrip("/").rsplit("/", 1)[1]
    cookie = next(item["value"] for item in page.context.cookies() if item["name"] == "learner")
    learner = URLSafeSerializer(SECRET, salt="learner-id").loads(cookie)
    context = RequestContext(learner, True, "ko", "e2e", datetime.now(UTC))
    with ThreadPoolExecutor(1) as thread:  # Playwright's sync API keeps an event loop running in this thread
        attempt = thread.submit(asyncio.run, quiz_service(database).attempt(context, attempt_id)).result()
    for drawn in attempt.questions:
        item = page.locator(f"#question-{drawn.id}")
        if drawn.type == "numeric":
            item.locator("input[name=value]").fill(f"{right_value(drawn):.6g} {drawn.unit}")
        else:
            for shown in drawn.options:
                if shown.option.correct:
                    item.locator(f"label[for='option-{shown.token}']").click()
        item.locator("button[type=submit]").click()
        expect(page.locator(f"#question-{drawn.id} .quiz-feedback")).to_be_visible()
    page.locator(".quiz-finish button").click()
    expect(page.locator(".quiz-result")).to_have_class("quiz-result is-passed")


def check_axe(page: Page, step: str) -> None:
    violations = run_axe(page)
    assert violations == [], f"{step}: {describe(violations)}"


@pytest.fixture(scope="module")
def claimed(browser: Browser, server: tuple[str, Database], screenshot_dir: Path | None) -> str:
    """Pass the exam in Korean and claim the certificate with a Korean name, as a learner does: its ID."""
    base_url, database = server
    with open_page(browser, language="ko") as page:
        pass_the_exam(page, base_url, database)
        page.get_by_role("link", name="수료증 받기").click()
        expect(page).to_have_url(f"{base_url}/ko/certificate")
        check_axe(page, "claim")
        save_screenshot(page, screenshot_dir, "certificate-claim-ko")
        page.get_by_label("수료증에 인쇄할 이름").fill(NAME)
        expect(page.locator("#claim-preview .certificate-preview-name")).to_have_text(NAME)  # live, as it will print
        save_screenshot(page, screenshot_dir, "certificate-claim-preview-ko")
        page.get_by_role("button", name="수료증 발급").click()
        expect(page.locator("#certificate-status")).to_have_class("certificate-status certificate-status-valid")
        return page.url.split("/c/", 1)[1].split("?", 1)[0]


def test_pass_claim_verify_and_print_a_korean_certificate(
    browser: Browser, server: tuple[str, Database], claimed: str, screenshot_dir: Path | None, tmp_path: Path
) -> None:
    base_url, database = server
    certificate_id = claimed
    with open_page(browser, language="ko") as page:
        page.goto(f"{base_url}/c/{certificate_id}")
        expect(page.locator(".certificate-name")).to_have_text(NAME)
        check_axe(page, "verification")
        save_screenshot(page, screenshot_dir, "certificate-page-ko")

        with database.session() as session:
            row = session.get(Certificate, certificate_id)
            assert row is not None
            qr_url = f"{base_url}/c/{certificate_id}#{row.qr_payload}"
        page.goto("about:blank")
        page.goto(qr_url)  # what scanning the printed QR code opens (a fresh load: JS reads the fragment)
        expect(page.locator("#qr-check")).to_contain_text("QR 코드가 진본입니다.")
        expect(page.locator("#certificate-status")).to_contain_text("유효한 수료증")
        save_screenshot(page, screenshot_dir, "certificate-qr-link-ko")

        with page.expect_download() as download_info:
            page.locator(f"a[href='/c/{certificate_id}.pdf']").click()
        pdf = tmp_path / "certificate.pdf"
        download_info.value.save_as(pdf)
    assert pdf.read_bytes().startswith(b"%PDF-")
    assert shutil.which("pdftoppm"), "pdftoppm (Debian: poppler-utils) is needed to look at the PDF"
    picture = (screenshot_dir or tmp_path) / "certificate-pdf-ko"
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-singlefile", str(pdf), str(picture)], check=True)
    assert picture.with_suffix(".png").stat().st_size > 20_000
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert NAME in text
    assert "수료증" in text
    assert certificate_id in text


def test_the_verification_page_in_english_light_and_dark_without_javascript(
    browser: Browser, server: tuple[str, Database], claimed: str, screenshot_dir: Path | None
) -> None:
    base_url, _ = server
    certificate_id = claimed
    for scheme in ("light", "dark"):
        with open_page(browser, color_scheme=scheme) as page:
            page.goto(f"{base_url}/c/{certificate_id}")
            expect(page.locator("#certificate-status")).to_contain_text("Valid certificate")
            check_axe(page, f"verification-{scheme}")
            save_screenshot(page, screenshot_dir, f"certificate-page-en-{scheme}")
    with open_page(browser, javascript=False, width=390, height=844) as page:
        page.goto(f"{base_url}/c/{certificate_id}")
        expect(page.locator("#certificate-status")).to_contain_text("Valid certificate")
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1
        save_screenshot(page, screenshot_dir, "certificate-page-en-phone")
