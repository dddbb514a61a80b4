"""The newsletter's mails as RFC 5322 messages (stdlib `email`, policy SMTP: CRLF, and a header value with a
line break is refused, so nothing typed or written can add a header).

Every mail has a text part and an HTML part with the same words. Issues carry RFC 8058's one-click unsubscribe
(`List-Unsubscribe` with an https URL and `List-Unsubscribe-Post: List-Unsubscribe=One-Click`) and the same link
visibly in the body. The URLs are DESIGN.md's: /newsletter/confirm/{token}, /newsletter/unsubscribe/{token}.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from email.headerregistry import Address, BaseHeader, HeaderRegistry
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from functools import cache
from html import escape
from urllib.parse import urlsplit

from app.newsletter.messages import (
    ALREADY_BODY,
    ALREADY_SUBJECT,
    CONFIRM_ACTION,
    CONFIRM_BUTTON,
    CONFIRM_INTRO,
    CONFIRM_OUTRO,
    CONFIRM_SUBJECT,
    ISSUE_FOOTER,
    PRIVACY,
    SENDER_NAME,
    UNSUBSCRIBE,
    NewsletterText,
)

CONFIRM_PATH = "/newsletter/confirm/"
UNSUBSCRIBE_PATH = "/newsletter/unsubscribe/"
ONE_CLICK = "List-Unsubscribe=One-Click"


class _RememberingRegistry(HeaderRegistry):
    """The stdlib's registry builds a new header class with type() on every header set or read (35,000 calls
    for 1,000 mails: a fifth of a send's time); the classes depend only on the name, so each is made once."""

    @cache  # noqa: B019  (one registry per process; the cache is meant to live as long)
    def __getitem__(self, name: str) -> type[BaseHeader]:
        return super().__getitem__(name)


POLICY = SMTP.clone(header_factory=_RememberingRegistry())


@dataclass(frozen=True, slots=True)
class IssueVersion:
    """One language of an issue: its subject, Markdown (the text part) and HTML (rendered once per send)."""

    language: str
    subject: str
    markdown: str
    html: str


def _page(language: str, title: str, body_html: str) -> str:
    return (
        f'<!doctype html>\n<html lang="{language}"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title></head>\n"
        '<body style="font-family: system-ui, sans-serif; line-height: 1.5; max-width: 40em; margin: 0 auto; '
        f'padding: 1em;">\n{body_html}\n</body></html>\n'
    )


class Mailer:
    """Composes the newsletter's mails for one site."""

    def __init__(
        self, base_url: str, translations: Mapping[str, gettext.NullTranslations], sender: str | None = None
    ) -> None:
        self.base_url = base_url
        self.host = urlsplit(base_url).hostname or "localhost"
        self.sender = sender or f"newsletter@{self.host}"
        self.translations = translations

    def text(self, language: str) -> NewsletterText:
        return NewsletterText(self.translations[language], language)

    def confirm_url(self, token: str) -> str:
        return f"{self.base_url}{CONFIRM_PATH}{token}"

    def unsubscribe_url(self, token: str) -> str:
        return f"{self.base_url}{UNSUBSCRIBE_PATH}{token}"

    def _message(self, to: str, language: str, subject: str, now: datetime, message_id: str | None) -> EmailMessage:
        text = self.text(language)
        message = EmailMessage(policy=POLICY)
        local, _, domain = self.sender.rpartition("@")
        message["From"] = Address(text.get(SENDER_NAME), local, domain)
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = format_datetime(now)
        message["Message-ID"] = message_id or make_msgid(domain=self.host)
        return message

    @staticmethod
    def _parts(message: EmailMessage, language: str, text: str, html: str) -> EmailMessage:
        message.set_content(text, cte="quoted-printable")
        message.add_alternative(html, subtype="html", cte="quoted-printable")
        message["Content-Language"] = language  # after the parts: setting content clears Content-* headers
        return message

    def confirmation(self, to: str, language: str, token: str, now: datetime) -> EmailMessage:
        text = self.text(language)
        url = self.confirm_url(token)
        subject = text.get(CONFIRM_SUBJECT)
        message = self._message(to, language, subject, now, None)
        lines = [text.get(CONFIRM_INTRO), "", text.get(CONFIRM_ACTION), url, "", text.get(CONFIRM_OUTRO)]
        html = (
            f"<p>{escape(text.get(CONFIRM_INTRO))}</p>\n<p>{escape(text.get(CONFIRM_ACTION))}</p>\n"
            f'<p><a href="{escape(url)}">{escape(text.get(CONFIRM_BUTTON))}</a></p>\n'
            f"<p>{escape(url)}</p>\n<p>{escape(text.get(CONFIRM_OUTRO))}</p>\n"
            f"<p><small>{escape(text.get(PRIVACY))}</small></p>"
        )
        return self._parts(message, language, "\n".join(lines) + "\n", _page(language, subject, html))

    def already_subscribed(self, to: str, language: str, now: datetime) -> EmailMessage:
        text = self.text(language)
        subject = text.get(ALREADY_SUBJECT)
        message = self._message(to, language, subject, now, None)
        html = f"<p>{escape(text.get(ALREADY_BODY))}</p>"
        return self._parts(message, language, text.get(ALREADY_BODY) + "\n", _page(language, subject, html))

    def issue(
        self, to: str, version: IssueVersion, message_id: str, unsubscribe_token: str, now: datetime
    ) -> EmailMessage:
        text = self.text(version.language)
        url = self.unsubscribe_url(unsubscribe_token)
        message = self._message(to, version.language, version.subject, now, message_id)
        message["List-Id"] = f"Interconnects <newsletter.{self.host}>"
        message["List-Unsubscribe"] = f"<{url}>"
        message["List-Unsubscribe-Post"] = ONE_CLICK
        footer = f"-- \n{text.get(ISSUE_FOOTER)}\n{text.get(UNSUBSCRIBE)}: {url}\n"
        body = version.markdown.rstrip("\n") + "\n\n" + footer
        html = (
            f"{version.html}\n<hr>\n<p><small>{escape(text.get(ISSUE_FOOTER))} "
            f'<a href="{escape(url)}">{escape(text.get(UNSUBSCRIBE))}</a></small></p>'
        )
        return self._parts(message, version.language, body, _page(version.language, version.subject, html))
