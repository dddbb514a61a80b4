"""A real SMTP server for tests (aiosmtpd, in a thread of the test process) that keeps what it receives."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from tests.servers import free_port


@dataclass
class Received:
    recipients: list[str]
    message: EmailMessage


@dataclass
class MailServer:
    """Keeps every accepted message; refuses DATA once `accept_limit` messages were accepted (451, as a relay
    that is going down would), until the limit is lifted."""

    url: str = ""
    received: list[Received] = field(default_factory=list)
    accept_limit: int | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            if self.accept_limit is not None and len(self.received) >= self.accept_limit:
                return "451 4.3.0 Try again later"
            parsed = message_from_bytes(envelope.original_content, policy=policy.default)
            assert isinstance(parsed, EmailMessage)
            self.received.append(Received(list(envelope.rcpt_tos), parsed))
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [item.message for item in self.received if address in item.recipients]


@contextmanager
def running_mail_server() -> Iterator[MailServer]:
    server = MailServer()
    port = free_port()
    controller = Controller(server, hostname="127.0.0.1", port=port)
    controller.start()
    server.url = f"smtp://127.0.0.1:{port}"
    try:
        yield server
    finally:
        controller.stop()
