"""The mail relay refusing while a learner subscribes through nginx: a clear answer, nothing half-recorded, and a
retry that works once the relay takes mail again.

The stack mails through SMTP (the suite's aiosmtpd relay), not an outbox directory, as production does; an outbox
made unwritable would also be no fault here, since the suite runs as root. The relay refusing every message
(451, as one going down answers) is the same failure to the app: the transport did not take the mail.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from app.newsletter.models import ConfirmationToken, Subscriber
from tests.deploy.site import Oracle, Site
from tests.mailserver import MailServer


@pytest.fixture
def refusing_relay(mail_server: MailServer) -> Iterator[MailServer]:
    with mail_server.lock:
        mail_server.accept_limit = len(mail_server.received)
    try:
        yield mail_server
    finally:
        with mail_server.lock:
            mail_server.accept_limit = None


def test_a_sign_up_the_relay_refuses_is_a_503_in_the_learners_language_and_leaves_nothing_half_recorded(
    site: Site, oracle: Oracle, refusing_relay: MailServer
) -> None:
    address = f"refused-{secrets.token_hex(4)}@example.org"
    form = {"email": address, "language": "ko"}
    with site.client("127.0.0.11") as learner:
        refused = site.post_form(learner, "/newsletter?lang=ko", "/newsletter?lang=ko", form)
        assert refused.status_code == 503, refused.text
        assert "확인 메일을 보낼 수 없습니다" in refused.text
        assert int(refused.headers["retry-after"]) > 0
        with oracle.database.session() as session:
            assert session.scalar(select(Subscriber).where(Subscriber.email == address)) is None
        assert refusing_relay.to(address) == []

        with refusing_relay.lock:
            refusing_relay.accept_limit = None
        retried = site.post_form(learner, "/newsletter?lang=ko", "/newsletter?lang=ko", form)
        assert retried.status_code == 200, retried.text
        [mail] = refusing_relay.to(address)
        body = mail.get_body(("plain",))
        assert body is not None
        link = re.search(re.escape(site.url) + r"/newsletter/confirm/[A-Za-z0-9_-]{43}", body.get_content())
        assert link is not None, body.get_content()
        path = link.group(0).removeprefix(site.url)
        assert site.post_form(learner, path, path, {}).status_code == 200
    with oracle.database.session() as session:
        subscriber = session.scalars(select(Subscriber).where(Subscriber.email == address)).one()
        links = session.scalar(
            select(func.count()).select_from(ConfirmationToken).where(ConfirmationToken.subscriber_id == subscriber.id)
        )
    assert (subscriber.status, subscriber.language, links) == ("confirmed", "ko", 1)
