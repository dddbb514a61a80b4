"""The two transports: SMTP against a real server, and the outbox's .eml files."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from app.newsletter.transport import OutboxTransport, SmtpTransport, TransportError, transport_for
from tests.mailserver import running_mail_server
from tests.servers import free_port


def _message(to: str, subject: str = "Hello") -> EmailMessage:
    message = EmailMessage(policy=policy.SMTP)
    message["From"] = "newsletter@testserver"
    message["To"] = to
    message["Subject"] = subject
    message.set_content("안녕하세요. Body text.\n")
    return message


def test_smtp_delivers_to_a_real_server_over_one_connection() -> None:
    with running_mail_server() as server:
        transport = SmtpTransport(server.url)
        for index in range(3):
            transport.send(_message(f"r{index}@example.com", f"Subject {index}"), f"m{index}")
        transport.close()
        assert [item.recipients for item in server.received] == [[f"r{i}@example.com"] for i in range(3)]
        assert server.received[2].message["Subject"] == "Subject 2"
        assert "안녕하세요" in server.received[0].message.get_content()
        assert transport.delivered("m0") is None  # SMTP cannot tell afterwards


def test_smtp_down_is_a_transport_error_with_the_address() -> None:
    port = free_port()  # nothing listens there
    transport = SmtpTransport(f"smtp://127.0.0.1:{port}", timeout_s=5)
    with pytest.raises(TransportError, match=f"127.0.0.1:{port}"):
        transport.send(_message("a@example.com"), "m")


def test_smtp_refusal_is_a_transport_error() -> None:
    with running_mail_server() as server:
        server.accept_limit = 0
        transport = SmtpTransport(server.url)
        with pytest.raises(TransportError, match="451"):
            transport.send(_message("a@example.com"), "m")
        assert server.received == []


@pytest.mark.parametrize("url", ["http://example.com", "smtp://", "mail.example.com:25"])
def test_a_malformed_smtp_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="SMTP_URL"):
        SmtpTransport(url)


def test_outbox_writes_whole_rfc5322_files_and_knows_them(tmp_path: Path) -> None:
    outbox = tmp_path / "outbox"
    transport = transport_for(None, outbox)
    assert isinstance(transport, OutboxTransport)
    assert transport.delivered("issue-1") is False
    transport.send(_message("a@example.com"), "issue-1")
    raw = (outbox / "issue-1.eml").read_bytes()
    assert b"\r\nSubject: Hello\r\n" in raw  # CRLF line ends, as RFC 5322 has them
    parsed = message_from_bytes(raw, policy=policy.default)
    assert parsed["To"] == "a@example.com"
    assert transport.delivered("issue-1") is True
    assert [path.name for path in outbox.iterdir()] == ["issue-1.eml"]  # no temporary file left


def test_an_unwritable_outbox_is_a_transport_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(TransportError, match="cannot write"):
        OutboxTransport(blocker / "outbox").send(_message("a@example.com"), "m")
