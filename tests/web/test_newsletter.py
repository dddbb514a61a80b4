"""The newsletter through HTTP: sign-up (with and without HTMX), double opt-in, one-click unsubscribe, and the
attacks: enumeration, scanners, guessed/expired/reused tokens, cross-site posts, header injection, floods."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx2 import Response
from sqlalchemy import select

from app.bootstrap import issue_sender
from app.newsletter.issue import load_issue
from app.newsletter.models import ConfirmationToken, Subscriber
from app.newsletter.service import SignupPolicy
from app.ratelimit import Limit
from tests.conftest import UNLIMITED, SettingsFactory
from tests.mailserver import running_mail_server
from tests.servers import free_port
from tests.web.newsletter import Clock, confirm_link, mails, newsletter_app, outbox_of, text_of, unsubscribe_path
from tests.web.quizzes import state_of

HX = {"HX-Request": "true"}
CROSS_SITE = {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(database_url: str, make_settings: SettingsFactory, clock: Clock) -> Iterator[FastAPI]:
    application = newsletter_app(database_url, make_settings, clock)
    yield application
    state_of(application).database.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def subscribers(app: FastAPI) -> dict[str, Subscriber]:
    with state_of(app).database.session() as session:
        return {row.email: row for row in session.scalars(select(Subscriber))}


def sign_up(client: TestClient, email: str, language: str = "en", **extra: Any) -> Response:
    headers = extra.pop("headers", {})
    data = {"email": email, "language": language, "source": extra.pop("source", "chapter:nvlink")}
    return client.post(f"/newsletter?lang={extra.pop('lang', 'en')}", data=data, headers=headers)


def send_issue(app: FastAPI, tmp_path: Path) -> None:
    path = tmp_path / "weekly-1.md"
    path.write_text('---\nsubject: "Weekly 1"\n---\nNVLink 5 doubles **NVLink 4**.\n', "utf-8")
    (tmp_path / "weekly-1.ko.md").write_text('---\nsubject: "주간 1호"\n---\nNVLink 5는 두 배입니다.\n', "utf-8")
    state = state_of(app)
    issue_sender(state.settings, state.database, state.translations, state.clock).send(load_issue(path))


# --- the whole flow --------------------------------------------------------------------------------------


def test_sign_up_confirm_receive_and_unsubscribe(
    app: FastAPI, client: TestClient, clock: Clock, tmp_path: Path
) -> None:
    outbox = outbox_of(app)
    response = client.post(
        "/newsletter?lang=en", data={"email": " Ada@Example.com ", "language": "ko", "source": "chapter:nvlink"}
    )
    assert response.status_code == 200
    assert "Check your inbox" in response.text
    assert "<html" in response.text
    assert response.headers["cache-control"] == "no-store"

    [confirmation] = mails(outbox, "ada@example.com")
    assert "구독을 확인해 주세요" in str(confirmation["Subject"])  # in the language signed up with
    assert confirmation.get_body(("html",)) is not None
    link = confirm_link(confirmation)

    page = client.get(link)  # what a mail scanner does: confirms nothing
    assert page.status_code == 200
    assert "구독 확인" in page.text
    assert f'action="{link}"' in page.text
    assert page.headers["x-robots-tag"] == "noindex"
    assert page.headers["referrer-policy"] == "same-origin"  # the token never leaves in a Referer to other sites
    assert subscribers(app)["ada@example.com"].status == "pending"

    clock.advance(hours=1)
    confirmed = client.post(link)
    assert confirmed.status_code == 200
    assert "구독이 확인되었습니다" in confirmed.text
    row = subscribers(app)["ada@example.com"]
    assert (row.status, row.language, row.source) == ("confirmed", "ko", "chapter:nvlink")
    assert row.consented_at is not None
    assert row.consented_at.replace(tzinfo=clock.now.tzinfo) == clock.now

    send_issue(app, tmp_path)
    [issue] = [mail for mail in mails(outbox, "ada@example.com") if mail["List-Unsubscribe"]]
    assert issue["Subject"] == "주간 1호"
    assert issue["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe = unsubscribe_path(issue)
    assert f"http://testserver{unsubscribe}" in text_of(issue)  # the visible link too

    assert client.get(unsubscribe).status_code == 200  # a scanner again: the page with a button
    assert subscribers(app)["ada@example.com"].status == "confirmed"

    # RFC 8058: the mail provider's server posts, with no cookie, no CSRF token, from anywhere.
    with TestClient(app) as provider:
        for _ in range(2):  # idempotent
            done = provider.post(
                unsubscribe,
                content=b"List-Unsubscribe=One-Click",
                headers=CROSS_SITE | {"content-type": "application/x-www-form-urlencoded"},
            )
            assert done.status_code == 200
            assert "구독이 취소되었습니다" in done.text
    assert subscribers(app)["ada@example.com"].status == "unsubscribed"
    assert list(state_of(app).newsletter.confirmed()) == []


def test_with_htmx_the_form_swaps_in_the_confirmation(client: TestClient) -> None:
    response = sign_up(client, "ada@example.com", headers=HX)
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<section class="newsletter-signup" id="newsletter-signup"')
    assert "Check your inbox" in response.text
    assert "<html" not in response.text
    assert "HX-Request" in response.headers["vary"]


# --- enumeration ----------------------------------------------------------------------------------------


def _comparable(response: Response) -> tuple[int, bytes, list[tuple[str, str]]]:
    headers = [(name, value) for name, value in response.headers.items() if name not in ("date", "set-cookie")]
    return response.status_code, response.content, headers


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_the_reply_is_the_same_for_new_pending_confirmed_and_unsubscribed(
    app: FastAPI, client: TestClient, tmp_path: Path, headers: dict[str, str]
) -> None:
    outbox = outbox_of(app)
    sign_up(client, "pending@example.com")
    sign_up(client, "confirmed@example.com")
    sign_up(client, "gone@example.com")
    for address in ("confirmed@example.com", "gone@example.com"):
        client.post(confirm_link(mails(outbox, address)[0]))
    send_issue(app, tmp_path)
    [issue] = [mail for mail in mails(outbox, "gone@example.com") if mail["List-Unsubscribe"]]
    client.post(unsubscribe_path(issue))
    states = {email: row.status for email, row in subscribers(app).items()}
    assert states == {
        "pending@example.com": "pending",
        "confirmed@example.com": "confirmed",
        "gone@example.com": "unsubscribed",
    }
    before = {address: len(mails(outbox, address)) for address in states}

    replies = [
        _comparable(sign_up(client, address, headers=headers))
        for address in ("new@example.com", "pending@example.com", "confirmed@example.com", "gone@example.com")
    ]
    assert all(reply == replies[0] for reply in replies), "a reply tells the address's state"
    # Each state mailed exactly one message, so the work (and time) does not tell either.
    assert {address: len(mails(outbox, address)) - count for address, count in before.items()} == dict.fromkeys(
        before, 1
    )
    assert len(mails(outbox, "new@example.com")) == 1
    notes = [str(mail["Subject"]) for mail in mails(outbox, "confirmed@example.com") if not mail["List-Unsubscribe"]]
    assert any("already subscribed" in subject for subject in notes)
    assert subscribers(app)["gone@example.com"].status == "pending"  # back only through a new confirmation


# --- tokens: scanners, reuse, expiry, guessing -------------------------------------------------------------


def test_a_confirmation_link_works_once(app: FastAPI, client: TestClient) -> None:
    sign_up(client, "ada@example.com")
    link = confirm_link(mails(outbox_of(app), "ada@example.com")[0])
    assert client.post(link).status_code == 200
    for method in ("GET", "POST"):
        again = client.request(method, link)
        assert again.status_code == 410
        assert "already been used" in again.text
        assert 'id="newsletter-signup"' in again.text  # offers to sign up again


def test_a_confirmation_link_expires_after_48_hours(app: FastAPI, client: TestClient, clock: Clock) -> None:
    sign_up(client, "early@example.com")
    sign_up(client, "late@example.com")
    early = confirm_link(mails(outbox_of(app), "early@example.com")[0])
    late = confirm_link(mails(outbox_of(app), "late@example.com")[0])
    clock.advance(hours=47, minutes=59)
    assert client.post(early).status_code == 200
    clock.advance(minutes=1)
    for method in ("GET", "POST"):
        expired = client.request(method, late)
        assert expired.status_code == 410
        assert "expired" in expired.text
    assert subscribers(app)["late@example.com"].status == "pending"


@pytest.mark.parametrize(
    "token",
    [
        "Q" * 43,  # well formed (43 URL-safe characters, as issued), unknown
        "short",
        "x" * 500,
        "%00%0d%0aSet-Cookie:%20a=b",
    ],
)
def test_unknown_and_malformed_tokens_get_a_plain_page_in_the_learners_language(client: TestClient, token: str) -> None:
    korean = {"Accept-Language": "ko-KR,ko;q=0.9"}
    for path in (f"/newsletter/confirm/{token}", f"/newsletter/unsubscribe/{token}"):
        for method in ("GET", "POST"):
            response = client.request(method, path, headers=korean)
            assert response.status_code == 404, (method, path)
            assert "이 링크는 사용할 수 없습니다" in response.text
            assert 'id="newsletter-signup"' in response.text
            assert "set-cookie: a" not in str(response.headers).lower()


def test_an_unsubscribe_token_is_not_a_confirmation_token_or_the_reverse(
    app: FastAPI, client: TestClient, tmp_path: Path
) -> None:
    sign_up(client, "ada@example.com")
    confirm = confirm_link(mails(outbox_of(app), "ada@example.com")[0])
    token = confirm.rsplit("/", 1)[1]
    assert client.post(f"/newsletter/unsubscribe/{token}").status_code == 404
    client.post(confirm)
    send_issue(app, tmp_path)
    [issue] = [mail for mail in mails(outbox_of(app), "ada@example.com") if mail["List-Unsubscribe"]]
    unsubscribe_token = unsubscribe_path(issue).rsplit("/", 1)[1]
    assert client.post(f"/newsletter/confirm/{unsubscribe_token}").status_code == 404
    assert subscribers(app)["ada@example.com"].status == "confirmed"


def test_tokens_are_stored_only_as_hashes(app: FastAPI, client: TestClient) -> None:
    sign_up(client, "ada@example.com")
    token = confirm_link(mails(outbox_of(app), "ada@example.com")[0]).rsplit("/", 1)[1]
    url = state_of(app).settings.sqlalchemy_url
    if url.startswith("sqlite"):
        assert token.encode() not in Path(url.removeprefix("sqlite:///")).read_bytes()
    from app.newsletter.models import ConfirmationToken

    with state_of(app).database.session() as session:
        stored = list(session.scalars(select(ConfirmationToken.token_hash)))
    assert token not in stored
    assert len(stored) == 1
    assert len(stored[0]) == 64


# --- bad input --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "email",
    [
        "not-an-address",
        "ada@example.com\r\nBcc: victim@example.org",
        "ada@example.com\nSubject: hi",
        "Ada <ada@example.com>",
        "ada@example.com, victim@example.org",
        "",
    ],
)
@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_an_invalid_address_is_refused_inline_in_the_learners_language(
    app: FastAPI, client: TestClient, email: str, headers: dict[str, str]
) -> None:
    response = client.post("/newsletter?lang=ko", data={"email": email, "language": "en"}, headers=headers)
    assert response.status_code == 422
    assert "올바른 이메일 주소를 입력해 주세요" in response.text
    assert 'aria-invalid="true"' in response.text
    assert ("<html" in response.text) is (not headers)
    assert "Bcc:" not in response.text or "&#34;" not in response.text  # what was typed is escaped, not markup
    assert mails(outbox_of(app)) == []
    assert subscribers(app) == {}


def test_an_oversized_field_is_a_422_page_not_a_500(client: TestClient) -> None:
    response = client.post("/newsletter", data={"email": "a" * 5000 + "@example.com"})
    assert response.status_code == 422


def test_an_unknown_language_or_source_falls_back_safely(app: FastAPI, client: TestClient) -> None:
    client.post("/newsletter?lang=ko", data={"email": "ada@example.com", "language": "xx", "source": "<script>"})
    row = subscribers(app)["ada@example.com"]
    assert (row.language, row.source) == ("ko", "newsletter")


# --- cross-site requests ----------------------------------------------------------------------------------


def test_a_cross_site_sign_up_or_confirmation_changes_nothing(app: FastAPI, client: TestClient) -> None:
    sign_up(client, "ada@example.com")
    link = confirm_link(mails(outbox_of(app), "ada@example.com")[0])
    assert sign_up(client, "victim@example.com", headers=CROSS_SITE).status_code == 403
    assert client.post(link, headers=CROSS_SITE).status_code == 403
    assert set(subscribers(app)) == {"ada@example.com"}
    assert subscribers(app)["ada@example.com"].status == "pending"
    assert len(mails(outbox_of(app))) == 1


# --- rate limits ------------------------------------------------------------------------------------------


def test_sign_ups_are_limited_per_ipv4_address_and_ipv6_64(database_url: str, make_settings: SettingsFactory) -> None:
    app = newsletter_app(database_url, make_settings, signup_policy=SignupPolicy(Limit(2, 3600), UNLIMITED))
    try:

        def attempt(client_address: str, email: str) -> Response:
            with TestClient(app, client=(client_address, 4000)) as client:
                return client.post("/newsletter?lang=ko", data={"email": email})

        assert attempt("2001:db8:1:2::1", "a@example.com").status_code == 200
        assert attempt("2001:db8:1:2:ffff::9", "b@example.com").status_code == 200
        refused = attempt("2001:db8:1:2::77", "c@example.com")  # the same /64
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) > 0
        assert "너무 많습니다" in refused.text
        assert attempt("2001:db8:1:3::1", "c@example.com").status_code == 200
        assert attempt("203.0.113.7", "d@example.com").status_code == 200
        assert attempt("203.0.113.8", "e@example.com").status_code == 200
        assert len(mails(outbox_of(app))) == 5  # the refused one mailed nobody
    finally:
        state_of(app).database.dispose()


def test_one_address_cannot_be_mailed_again_and_again_from_many_networks(
    database_url: str, make_settings: SettingsFactory
) -> None:
    app = newsletter_app(database_url, make_settings, signup_policy=SignupPolicy(UNLIMITED, Limit(3, 86_400)))
    try:
        statuses = []
        for index in range(6):
            with TestClient(app, client=(f"198.51.100.{index}", 4000)) as client:
                response = client.post(
                    "/newsletter",
                    data={"email": "Victim@Example.com" if index % 2 else "victim@example.com"},
                    headers=HX,
                )
                statuses.append(response.status_code)
        assert statuses == [200, 200, 200, 429, 429, 429]
        assert len(mails(outbox_of(app), "victim@example.com")) == 3
    finally:
        state_of(app).database.dispose()


# --- SMTP -------------------------------------------------------------------------------------------------


def test_sign_up_mails_through_smtp_when_configured(database_url: str, make_settings: SettingsFactory) -> None:
    with running_mail_server() as server:
        app = newsletter_app(database_url, make_settings, smtp_url=server.url)
        try:
            with TestClient(app) as client:
                assert sign_up(client, "ada@example.com", "ko").status_code == 200
            [message] = server.to("ada@example.com")
            assert "구독" in str(message["Subject"])
            assert message["Content-Language"] == "ko"
            assert not outbox_of(app).exists()
        finally:
            state_of(app).database.dispose()


def test_smtp_down_during_sign_up_is_a_503_with_a_message(database_url: str, make_settings: SettingsFactory) -> None:
    app = newsletter_app(database_url, make_settings, smtp_url=f"smtp://127.0.0.1:{free_port()}")
    try:
        with TestClient(app) as client:
            response = sign_up(client, "ada@example.com", lang="ko", headers=HX)
        assert response.status_code == 503
        assert "확인 메일을 보낼 수 없습니다" in response.text
        assert response.headers["retry-after"]
    finally:
        state_of(app).database.dispose()


def tokens(app: FastAPI) -> list[ConfirmationToken]:
    with state_of(app).database.session() as session:
        return list(session.scalars(select(ConfirmationToken)))


def test_an_unwritable_outbox_leaves_no_sign_up_half_recorded_and_a_retry_succeeds(client: TestClient) -> None:
    app = client.app
    assert isinstance(app, FastAPI)
    outbox = outbox_of(app)
    outbox.parent.mkdir(parents=True, exist_ok=True)
    outbox.write_text("")  # a file where the directory should be: no mail can be written, even by root
    refused = sign_up(client, "ada@example.com", "ko", lang="ko")
    assert refused.status_code == 503
    assert "확인 메일을 보낼 수 없습니다" in refused.text
    assert refused.headers["retry-after"]
    assert subscribers(app) == {}  # no one left pending on a link that was never sent
    assert tokens(app) == []

    outbox.unlink()
    assert sign_up(client, "ada@example.com", "ko", lang="ko").status_code == 200
    [confirmation] = mails(outbox, "ada@example.com")
    assert client.post(confirm_link(confirmation)).status_code == 200
    assert subscribers(app)["ada@example.com"].status == "confirmed"


def test_an_unwritable_outbox_leaves_an_unsubscribed_address_unsubscribed(client: TestClient) -> None:
    app = client.app
    assert isinstance(app, FastAPI)
    outbox = outbox_of(app)
    sign_up(client, "ada@example.com")
    client.post(confirm_link(mails(outbox, "ada@example.com")[0]))
    with state_of(app).database.session() as session:
        row = session.scalars(select(Subscriber)).one()
        row.status = "unsubscribed"
        session.commit()
    before = subscribers(app)["ada@example.com"]
    shutil.rmtree(outbox)
    outbox.write_text("")
    assert sign_up(client, "ada@example.com").status_code == 503
    after = subscribers(app)["ada@example.com"]
    assert (after.status, after.updated_at) == ("unsubscribed", before.updated_at)
    assert [token.used_at is not None for token in tokens(app)] == [True]  # only the link that confirmed

    outbox.unlink()
    assert sign_up(client, "ada@example.com").status_code == 200
    assert subscribers(app)["ada@example.com"].status == "pending"


def test_mails_that_could_not_be_sent_do_not_use_up_the_addresss_limit_but_the_networks_count(
    database_url: str, make_settings: SettingsFactory
) -> None:
    """A learner who retried through an outage can sign up once the relay is back; a script that keeps us
    trying a relay that is down is still bounded by its network's limit."""
    app = newsletter_app(database_url, make_settings, signup_policy=SignupPolicy(Limit(5, 3600), Limit(3, 86_400)))
    try:
        outbox = outbox_of(app)
        outbox.parent.mkdir(parents=True, exist_ok=True)
        outbox.write_text("")
        with TestClient(app, client=("198.51.100.7", 4000)) as client:
            failed = [sign_up(client, "ada@example.com").status_code for _ in range(4)]
            outbox.unlink()
            after_outage = sign_up(client, "ada@example.com").status_code
            past_network_limit = sign_up(client, "bob@example.com").status_code
        assert failed == [503, 503, 503, 503]  # past the address's 3: none of them was mailed
        assert after_outage == 200
        assert len(mails(outbox, "ada@example.com")) == 1
        assert past_network_limit == 429  # the network counted all five tries
    finally:
        state_of(app).database.dispose()


# --- shared pages and site links --------------------------------------------------------------------------


def test_chapter_pages_carry_the_form_and_stay_the_same_bytes_for_everyone(app: FastAPI) -> None:
    with TestClient(app) as first, TestClient(app) as second:
        first.get("/en/")  # a learner with a cookie
        sign_up(first, "ada@example.com")
        a = first.get("/en/guides/nvlink")
        b = second.get("/en/guides/nvlink")
    assert a.status_code == b.status_code == 200
    assert a.content == b.content
    assert a.headers["etag"] == b.headers["etag"]
    assert not a.headers["etag"].startswith("W/")
    assert a.headers["cache-control"].startswith("public")
    assert "set-cookie" not in b.headers
    assert 'action="/newsletter?lang=en"' in a.text
    assert 'name="source" value="chapter:nvlink"' in a.text


def test_the_home_page_has_the_form(client: TestClient) -> None:
    page = client.get("/ko/")
    assert 'id="newsletter-signup"' in page.text
    assert 'value="home"' in page.text
    assert "평일 아침마다" in page.text


def test_donation_and_next_guide_links_come_from_the_settings(
    database_url: str, make_settings: SettingsFactory
) -> None:
    app = newsletter_app(
        database_url,
        make_settings,
        donation_url="https://donate.example/interconnects",
        next_guide_url="https://guides.example/gpu-vs-tpu",
    )
    try:
        course = state_of(app).course
        last, first = course.published[-1].slug, course.published[0].slug
        with TestClient(app) as client:
            assert 'href="https://donate.example/interconnects"' in client.get("/en/lab").text
            assert 'href="https://guides.example/gpu-vs-tpu"' in client.get(f"/en/guides/{last}").text
            first_page = client.get(f"/en/guides/{first}").text
            assert "gpu-vs-tpu" not in first_page
            assert 'rel="next"' in first_page
    finally:
        state_of(app).database.dispose()


def test_without_settings_there_are_no_such_links(client: TestClient, app: FastAPI) -> None:
    last = state_of(app).course.published[-1].slug
    assert "Next guide" not in client.get(f"/en/guides/{last}").text
    assert "donation" not in client.get("/en/").text
