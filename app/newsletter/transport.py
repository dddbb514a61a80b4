"""Where mail goes: SMTP when SMTP_URL is set, otherwise one RFC 5322 `.eml` file per message in the outbox.

A transport sends a message under a name unique to it (a delivery's is the issue and the subscriber) and may
be asked afterwards whether that name was delivered: the outbox knows (the file is written under a temporary
name and renamed into place, so a file that exists is whole), SMTP cannot tell (None), so a delivery that was
interrupted while SMTP had it is never sent again.
"""

from __future__ import annotations

import os
import smtplib
import ssl
import threading
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit

SMTP_TIMEOUT_S = 30


class TransportError(Exception):
    """The message was not accepted; the message says why, for the operator."""


class Transport(Protocol):
    def send(self, message: EmailMessage, name: str) -> None: ...

    def delivered(self, name: str) -> bool | None: ...

    def close(self) -> None: ...


class OutboxTransport:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, name: str) -> Path:
        return self.directory / f"{name}.eml"

    def send(self, message: EmailMessage, name: str) -> None:
        final = self.path(name)
        temporary = self.directory / f".{name}.tmp"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with temporary.open("wb") as file:
                file.write(message.as_bytes())  # the message's own policy: SMTP's CRLF
            os.replace(temporary, final)
        except OSError as error:
            raise TransportError(f"cannot write {final}: {error.strerror or error}") from error

    def delivered(self, name: str) -> bool | None:
        return self.path(name).exists()

    def close(self) -> None:
        return None


class SmtpTransport:
    """With `keep_open` (a send of thousands, which would otherwise spend most of its time in handshakes), one
    connection opened on first use and kept until `close`, reopened once if the server dropped it meanwhile;
    without (the web app's occasional confirmation mail), a connection per message."""

    def __init__(self, url: str, timeout_s: float = SMTP_TIMEOUT_S, keep_open: bool = True) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("SMTP_URL must look like smtp://user:password@host:587 or smtps://host:465")
        self.tls = parts.scheme == "smtps"
        self.starttls = parse_qs(parts.query).get("starttls", ["0"])[0] in ("1", "true", "yes")
        self.host = parts.hostname
        self.port = parts.port or (465 if self.tls else 25)
        self.username = unquote(parts.username) if parts.username else None
        self.password = unquote(parts.password) if parts.password else None
        self.timeout_s = timeout_s
        self.keep_open = keep_open
        self._connection: smtplib.SMTP | None = None
        self._lock = threading.Lock()  # the web app sends from worker threads

    def _connect(self) -> smtplib.SMTP:
        context = ssl.create_default_context()
        connection: smtplib.SMTP
        if self.tls:
            connection = smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout_s, context=context)
        else:
            connection = smtplib.SMTP(self.host, self.port, timeout=self.timeout_s)
            if self.starttls:
                connection.starttls(context=context)
        if self.username is not None:
            connection.login(self.username, self.password or "")
        return connection

    def send(self, message: EmailMessage, name: str) -> None:
        with self._lock:
            for attempt in range(2):
                try:
                    if self._connection is None:
                        self._connection = self._connect()
                    self._connection.send_message(message)
                    if not self.keep_open:
                        self._drop()
                    return
                except smtplib.SMTPServerDisconnected as error:
                    self._connection = None
                    if attempt:
                        raise TransportError(f"SMTP server {self.host}:{self.port} disconnected: {error}") from error
                except (smtplib.SMTPException, OSError) as error:
                    self._drop()
                    raise TransportError(f"SMTP server {self.host}:{self.port}: {error}") from error

    def delivered(self, name: str) -> bool | None:
        return None

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.quit()
            except (smtplib.SMTPException, OSError):
                connection.close()

    def close(self) -> None:
        with self._lock:
            self._drop()


def transport_for(smtp_url: str | None, outbox: Path, keep_open: bool = True) -> Transport:
    return SmtpTransport(smtp_url, keep_open=keep_open) if smtp_url else OutboxTransport(outbox)
