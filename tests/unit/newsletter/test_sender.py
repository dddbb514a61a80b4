"""Sending an issue: everyone confirmed gets exactly one copy in their language, however often the send runs or
wherever it stopped; SMTP refusing mail stops the run, and the next one resumes."""

from __future__ import annotations

from email import message_from_bytes, policy
from pathlib import Path

import pytest
from sqlalchemy import delete, func, insert, select, update

from app.db import Database
from app.newsletter.errors import IssueChangedError, SendStoppedError
from app.newsletter.issue import load_issue
from app.newsletter.mail import Mailer
from app.newsletter.models import Delivery
from app.newsletter.sender import IssueSender, delivery_name
from app.newsletter.transport import OutboxTransport, SmtpTransport, Transport
from app.web.i18n import load_translations
from tests.mailserver import running_mail_server
from tests.unit.newsletter.helpers import NOW, add_subscribers, deliveries, write_issue

MAILER = Mailer("https://course.example", load_translations())


def sender(database: Database, transport: Transport, batch: int = 7) -> IssueSender:
    return IssueSender(database, transport, MAILER, lambda: NOW, batch=batch)


def outbox_recipients(outbox: Path) -> list[str]:
    return sorted(
        str(message_from_bytes(path.read_bytes(), policy=policy.default)["To"]) for path in outbox.glob("*.eml")
    )


def test_every_confirmed_subscriber_gets_one_copy_and_a_second_run_mails_no_one(
    database: Database, tmp_path: Path
) -> None:
    english = add_subscribers(database, 12)
    korean = add_subscribers(database, 5, language="ko")
    add_subscribers(database, 3, status="pending")
    add_subscribers(database, 2, status="unsubscribed")
    outbox = tmp_path / "outbox"
    issue = load_issue(write_issue(tmp_path))

    report = sender(database, OutboxTransport(outbox)).send(issue)
    assert (report.sent, report.already_sent, report.uncertain) == (17, 0, 0)
    assert outbox_recipients(outbox) == sorted(english + korean)
    again = sender(database, OutboxTransport(outbox)).send(issue)
    assert (again.sent, again.already_sent) == (0, 17)
    assert len(list(outbox.glob("*.eml"))) == 17
    assert set(deliveries(database, issue.id).values()) == {"sent"}

    subjects = {
        str(parsed["To"]): str(parsed["Subject"])
        for parsed in (message_from_bytes(path.read_bytes(), policy=policy.default) for path in outbox.glob("*.eml"))
    }
    assert subjects[korean[0]] == "issue-1호"
    assert subjects[english[0]] == "Issue issue-1"


def test_a_subscriber_added_later_gets_the_issue_on_the_next_run(database: Database, tmp_path: Path) -> None:
    add_subscribers(database, 2)
    outbox = tmp_path / "outbox"
    issue = load_issue(write_issue(tmp_path))
    sender(database, OutboxTransport(outbox)).send(issue)
    late = add_subscribers(database, 1, language="ko")
    assert sender(database, OutboxTransport(outbox)).send(issue).sent == 1
    assert late[0] in outbox_recipients(outbox)


def test_an_interrupted_delivery_is_settled_by_what_the_outbox_holds(database: Database, tmp_path: Path) -> None:
    """A run killed after writing a mail but before marking it, and one killed before writing it."""
    addresses = add_subscribers(database, 3)
    outbox = tmp_path / "outbox"
    issue = load_issue(write_issue(tmp_path))
    transport = OutboxTransport(outbox)
    sender(database, transport).send(issue)
    # Put two deliveries back as a killed run leaves them: `sending`, one with its file, one without.
    ids = dict(
        database.transaction(
            lambda session: session.execute(select(Delivery.subscriber_id, Delivery.status)).all(),
            write=False,
        )
    )
    _first, second, third = sorted(ids)
    database.transaction(lambda session: session.execute(update(Delivery).values(status="sending")), write=True)
    database.transaction(
        lambda session: session.execute(delete(Delivery).where(Delivery.subscriber_id == third)),
        write=True,
    )
    database.transaction(
        lambda session: session.execute(
            insert(Delivery).values(
                issue_id=issue.id,
                subscriber_id=third,
                language="en",
                status="sending",
                unsubscribe_hash="f" * 64,
                claimed_at=NOW,
            )
        ),
        write=True,
    )
    transport.path(delivery_name(issue.id, second)).unlink()  # never written
    (outbox / f".{delivery_name(issue.id, second)}.tmp").write_bytes(b"half a mai")  # a torn write

    report = sender(database, transport).send(issue)
    assert (report.sent, report.already_sent, report.uncertain) == (1, 2, 0)
    assert outbox_recipients(outbox) == sorted(addresses)  # each exactly once
    assert set(deliveries(database, issue.id).values()) == {"sent"}
    assert list(outbox.glob(".*.tmp")) == []  # the torn write was replaced by a whole file


def test_smtp_refusing_mail_stops_the_send_and_the_next_run_resumes(database: Database, tmp_path: Path) -> None:
    addresses = add_subscribers(database, 10)
    issue = load_issue(write_issue(tmp_path))
    with running_mail_server() as server:
        server.accept_limit = 4
        with pytest.raises(SendStoppedError, match="451") as stopped:
            sender(database, SmtpTransport(server.url)).send(issue)
        assert stopped.value.sent == 4
        assert "run the same command again" in str(stopped.value)
        assert sorted(deliveries(database, issue.id).values()) == ["sent"] * 4  # the refused one is not claimed

        server.accept_limit = None
        report = sender(database, SmtpTransport(server.url)).send(issue)
        assert (report.sent, report.already_sent) == (6, 4)
        for address in addresses:
            assert len(server.to(address)) == 1, address
        message = server.to(addresses[0])[0]
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert str(message["List-Unsubscribe"]).startswith("<https://course.example/newsletter/unsubscribe/")


def test_smtp_down_from_the_start_stops_with_a_clear_error_and_mails_no_one(database: Database, tmp_path: Path) -> None:
    from tests.servers import free_port

    add_subscribers(database, 3)
    issue = load_issue(write_issue(tmp_path))
    with pytest.raises(SendStoppedError, match=r"127\.0\.0\.1:\d+.*stopped after 0 mail"):
        sender(database, SmtpTransport(f"smtp://127.0.0.1:{free_port()}", timeout_s=5)).send(issue)
    assert deliveries(database, issue.id) == {}


def test_an_interrupted_smtp_delivery_is_never_sent_again(database: Database, tmp_path: Path) -> None:
    """SMTP cannot say whether a mail it was handed when the run died left: at most once, reported."""
    add_subscribers(database, 2)
    issue = load_issue(write_issue(tmp_path))
    with running_mail_server() as server:
        sender(database, SmtpTransport(server.url)).send(issue)
        database.transaction(
            lambda session: session.execute(
                update(Delivery).where(Delivery.subscriber_id == min_id(database)).values(status="sending")
            ),
            write=True,
        )
        report = sender(database, SmtpTransport(server.url)).send(issue)
        assert (report.sent, report.already_sent, report.uncertain) == (0, 1, 1)
        assert len(server.received) == 2


def min_id(database: Database) -> int:
    found = database.transaction(lambda s: s.scalar(select(func.min(Delivery.subscriber_id))), write=False)
    assert found is not None
    return int(found)


def test_the_same_id_with_other_content_is_refused(database: Database, tmp_path: Path) -> None:
    add_subscribers(database, 1)
    outbox = tmp_path / "outbox"
    sender(database, OutboxTransport(outbox)).send(load_issue(write_issue(tmp_path)))
    changed = load_issue(write_issue(tmp_path, body="A corrected text.\n"))
    with pytest.raises(IssueChangedError, match="another id"):
        sender(database, OutboxTransport(outbox)).send(changed)
    assert len(list(outbox.glob("*.eml"))) == 1
