"""The newsletter service: sign up (double opt-in), confirm, unsubscribe, export.

Like the quiz and certificate services it is built once with what it needs, owns its transactions (through
`Database.run`) and raises domain errors (`app.newsletter.errors`).

Nothing a sign-up answers tells whether the address was new, pending, confirmed or unsubscribed: the reply is
the same, and every state sends one mail (a confirmation link, or to a confirmed address a note that it already
is subscribed), so even the time taken does not differ by state. Sign-ups are limited per client network (IPv4
/32, IPv6 /64) and per address, in the database (app.ratelimit), so every process counts together and no one
can make the site mail an address more than a few times a day.

A sign-up is recorded (a pending subscriber, a confirmation token) and committed before its mail goes to the
transport, since a transaction held open for an SMTP exchange would hold a database connection and the row's
locks for as long as a relay takes to time out. When the transport refuses the mail, what the sign-up recorded
for it is withdrawn in a second transaction (the token; the subscriber, if this sign-up created it or
re-opened it), so no one is left pending on a link that was never sent and the same sign-up can simply be
retried. The rate limits keep the attempt: they bound what a client can make the site try.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial

from anyio import to_thread
from sqlalchemy import delete, exists, select
from sqlalchemy.orm import Session

from app.conflict import insert_or_ignore
from app.context import RequestContext
from app.db import Database, DatabaseUnavailableError
from app.i18n import LANGUAGES
from app.newsletter.addresses import address_key, normalise_address
from app.newsletter.errors import (
    InvalidAddressError,
    MailUnavailableError,
    SignupRateLimitedError,
    TokenInvalidError,
)
from app.newsletter.mail import Mailer
from app.newsletter.messages import NewsletterText
from app.newsletter.models import ConfirmationToken, Delivery, Subscriber
from app.newsletter.readmodels import Subscription
from app.newsletter.tokens import new_token, parse_token
from app.newsletter.transport import Transport, TransportError
from app.ratelimit import Limit, check_and_count, uncount

TOKEN_LIFETIME = timedelta(hours=48)
DEFAULT_SOURCE = "newsletter"
_SOURCE = re.compile(r"home|newsletter|chapter:[a-z0-9-]{1,60}")
EXPORT_BATCH = 1000

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SignupPolicy:
    """Sign-ups per client network (a household or office shares one) and per address (mails it can be sent)."""

    per_network: Limit = field(default_factory=lambda: Limit(10, 3600))
    per_address: Limit = field(default_factory=lambda: Limit(3, 86_400))


def aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; every stored one is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def clean_source(source: str) -> str:
    """Where the form was: recorded with the consent, so only known shapes are kept."""
    return source if _SOURCE.fullmatch(source) else DEFAULT_SOURCE


_INSERT_SUBSCRIBER = insert_or_ignore(Subscriber, index_elements=[Subscriber.email], returning=[Subscriber.id])


@dataclass(frozen=True, slots=True)
class _Outgoing:
    """The mail a sign-up sends, and what the sign-up recorded for it (to withdraw if it cannot be sent)."""

    kind: str  # "confirm" or "already"
    language: str
    token: str = ""
    token_hash: str = ""
    subscriber_id: int = 0
    created: bool = False  # the sign-up inserted the subscriber
    reopened_from: datetime | None = None  # an unsubscribed subscriber made pending: its updated_at before


@dataclass(eq=False)
class NewsletterService:
    database: Database
    transport: Transport
    mailer: Mailer
    policy: SignupPolicy = field(default_factory=SignupPolicy)

    def text(self, language: str) -> NewsletterText:
        return self.mailer.text(language)

    async def subscribe(self, context: RequestContext, email: str, language: str, source: str) -> None:
        """Record the sign-up and mail the address; raises InvalidAddressError, SignupRateLimitedError or
        MailUnavailableError, and otherwise answers nothing that depends on the address."""
        language = language if language in LANGUAGES else context.language
        source = clean_source(source)
        address = normalise_address(email)
        if address is None:
            raise InvalidAddressError(email, language, source)
        now = context.now

        def work(session: Session) -> _Outgoing:
            limits = [
                (f"nl:n:{context.client}", self.policy.per_network),
                (address_key(address), self.policy.per_address),
            ]
            refusal = check_and_count(session, limits, now)
            if refusal is not None:
                raise SignupRateLimitedError(refusal.retry_after_s, email, language, source)
            # Two first sign-ups of one address at once: the insert of one does nothing, and both then lock
            # the one row.
            inserted_id = session.execute(
                _INSERT_SUBSCRIBER.on(session),
                {
                    "email": address,
                    "language": language,
                    "status": "pending",
                    "source": source,
                    "created_at": now,
                    "updated_at": now,
                },
            ).scalar_one_or_none()
            subscriber = session.scalars(select(Subscriber).where(Subscriber.email == address).with_for_update()).one()
            if subscriber.status == "confirmed":
                return _Outgoing("already", language)
            token, hashed = new_token()
            session.add(
                ConfirmationToken(
                    token_hash=hashed,
                    subscriber_id=subscriber.id,
                    language=language,
                    source=source,
                    created_at=now,
                    expires_at=now + TOKEN_LIFETIME,
                )
            )
            reopened_from = None
            if subscriber.status == "unsubscribed":  # subscribing again needs a confirmation again
                reopened_from = subscriber.updated_at
                subscriber.status = "pending"
                subscriber.updated_at = now
            created = inserted_id is not None  # ON CONFLICT DO NOTHING returns no row for an existing address
            return _Outgoing("confirm", language, token, hashed, subscriber.id, created, reopened_from)

        outgoing = await self.database.run(work, write=True)
        if outgoing.kind == "confirm":
            message = self.mailer.confirmation(address, outgoing.language, outgoing.token, now)
        else:
            message = self.mailer.already_subscribed(address, outgoing.language, now)
        name = f"{now:%Y%m%dT%H%M%S}-{outgoing.kind}-{secrets.token_hex(8)}"
        try:
            await to_thread.run_sync(self.transport.send, message, name)
        except TransportError as error:
            # The address's own limit counts mails it was sent, so a mail not sent is given back: a learner who
            # retried through an outage is not refused for a day. The network's count stays, which bounds how
            # often a script can make us try a relay that is down.
            address_limit = (address_key(address), self.policy.per_address)
            try:
                await self.database.run(partial(_mail_not_sent, outgoing, address_limit, now), write=True)
            except DatabaseUnavailableError:
                # Left as it was, the token was never mailed and expires unused; the retry signs up afresh.
                logger.warning("a sign-up whose mail was not sent could not be withdrawn", exc_info=True)
            raise MailUnavailableError(str(error)) from error

    def _token_row(self, session: Session, token: str, lock: bool) -> tuple[ConfirmationToken, Subscriber]:
        hashed = parse_token(token)
        statement = (
            select(ConfirmationToken, Subscriber)
            .join(Subscriber, Subscriber.id == ConfirmationToken.subscriber_id)
            .where(ConfirmationToken.token_hash == hashed)
        )
        found = session.execute(statement.with_for_update() if lock else statement).first() if hashed else None
        if found is None:
            raise TokenInvalidError("unknown")
        token_row, subscriber = found
        return token_row, subscriber

    @staticmethod
    def _usable(token: ConfirmationToken, now: datetime) -> None:
        if token.used_at is not None:
            raise TokenInvalidError("used")
        if aware(token.expires_at) <= now:
            raise TokenInvalidError("expired")

    async def confirmation(self, token: str, now: datetime) -> Subscription:
        """What the confirmation link's page shows; confirms nothing (mail scanners open links)."""

        def work(session: Session) -> Subscription:
            row, subscriber = self._token_row(session, token, lock=False)
            self._usable(row, now)
            return Subscription(subscriber.email, row.language, subscriber.status)

        return await self.database.run(work)

    async def confirm(self, token: str, now: datetime) -> Subscription:
        """Use the token (once) and record the consent: when, in which language, from which form."""

        def work(session: Session) -> Subscription:
            row, subscriber = self._token_row(session, token, lock=True)
            self._usable(row, now)
            row.used_at = now
            subscriber.status = "confirmed"
            subscriber.language = row.language
            subscriber.source = row.source
            subscriber.consented_at = now
            subscriber.unsubscribed_at = None
            subscriber.updated_at = now
            return Subscription(subscriber.email, row.language, subscriber.status)

        return await self.database.run(work, write=True)

    def _delivery(self, session: Session, token: str, lock: bool) -> Subscriber:
        hashed = parse_token(token)
        statement = (
            select(Subscriber)
            .join(Delivery, Delivery.subscriber_id == Subscriber.id)
            .where(Delivery.unsubscribe_hash == hashed)
        )
        subscriber = session.scalars(statement.with_for_update() if lock else statement).first() if hashed else None
        if subscriber is None:
            raise TokenInvalidError("unknown")
        return subscriber

    async def unsubscription(self, token: str) -> Subscription:
        """What the unsubscribe link's page shows; changes nothing."""

        def work(session: Session) -> Subscription:
            subscriber = self._delivery(session, token, lock=False)
            return Subscription(subscriber.email, subscriber.language, subscriber.status)

        return await self.database.run(work)

    async def unsubscribe(self, token: str, now: datetime) -> Subscription:
        """RFC 8058's one-click POST, and the page's button: idempotent, the token in the URL is the authority."""

        def work(session: Session) -> Subscription:
            subscriber = self._delivery(session, token, lock=True)
            if subscriber.status != "unsubscribed":
                subscriber.status = "unsubscribed"
                subscriber.unsubscribed_at = now
                subscriber.updated_at = now
            return Subscription(subscriber.email, subscriber.language, subscriber.status)

        return await self.database.run(work, write=True)

    def confirmed(self) -> Iterator[tuple[str, str, str, datetime | None]]:
        """Every confirmed subscriber (address, language, source, consent time), by id, read in batches."""
        after = 0
        while True:
            with self.database.session() as session:
                rows = session.execute(
                    select(
                        Subscriber.id, Subscriber.email, Subscriber.language, Subscriber.source, Subscriber.consented_at
                    )
                    .where(Subscriber.status == "confirmed", Subscriber.id > after)
                    .order_by(Subscriber.id)
                    .limit(EXPORT_BATCH)
                ).all()
            if not rows:
                return
            for subscriber_id, email, language, source, consented_at in rows:
                after = subscriber_id
                yield email, language, source, aware(consented_at) if consented_at else None


def _mail_not_sent(outgoing: _Outgoing, address_limit: tuple[str, Limit], now: datetime, session: Session) -> None:
    key, limit = address_limit
    uncount(session, key, limit, now)
    if outgoing.kind == "confirm":
        _withdraw(outgoing, now, session)


def _withdraw(outgoing: _Outgoing, now: datetime, session: Session) -> None:
    """Undo what a sign-up recorded for a confirmation mail that was not sent: its token, and the subscriber's
    change, unless another sign-up of the address has since left a live link of its own."""
    session.execute(delete(ConfirmationToken).where(ConfirmationToken.token_hash == outgoing.token_hash))
    if not outgoing.created and outgoing.reopened_from is None:
        return
    subscriber = session.scalars(
        select(Subscriber).where(Subscriber.id == outgoing.subscriber_id).with_for_update()
    ).one_or_none()
    if subscriber is None or subscriber.status != "pending":
        return
    live_link = exists().where(
        ConfirmationToken.subscriber_id == subscriber.id,
        ConfirmationToken.used_at.is_(None),
        ConfirmationToken.expires_at > now,
    )
    if session.scalar(select(live_link)):
        return
    if outgoing.created:
        session.delete(subscriber)
    elif outgoing.reopened_from is not None:
        subscriber.status = "unsubscribed"
        subscriber.updated_at = outgoing.reopened_from
