"""Sending an issue to every confirmed subscriber, safe to run again: after a crash, a kill, an SMTP outage or a
scheduler that retries, nobody is mailed twice and the next run mails whoever is left.

For each recipient a delivery row is committed (`sending`) before the mail is handed to the transport, and marked
`sent` after it was accepted, in the transaction that claims the next recipient (one transaction per mail, not
two). A run begins by settling the rows a previous run left `sending`: a mail the outbox has whole is marked
sent, one it lacks is claimed again; SMTP cannot say, so such a mail (at most one per interrupted run) is never
sent again and is reported as uncertain. A transport failure releases the claim of the mail that failed and
stops the run with the error.

Subscribers are read in batches by id (keyset), so memory stays flat however long the list is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy import (
    DateTime,
    Executable,
    Result,
    Select,
    String,
    and_,
    bindparam,
    delete,
    exists,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db import Database
from app.newsletter.errors import IssueChangedError, SendStoppedError
from app.newsletter.issue import IssueFile
from app.newsletter.mail import Mailer
from app.newsletter.models import Delivery, Issue, Subscriber
from app.newsletter.readmodels import SendReport
from app.newsletter.tokens import new_token
from app.newsletter.transport import Transport, TransportError

BATCH = 500

# Built once with bound parameters, so each is compiled once: built per mail, constructing them cost as much as
# SQLite's work.
_CLAIM = insert(Delivery).from_select(
    ["issue_id", "subscriber_id", "language", "status", "unsubscribe_hash", "claimed_at"],
    select(
        bindparam("p_issue_id", type_=String()),
        Subscriber.id,
        bindparam("p_language", type_=String()),
        literal("sending", String()),
        bindparam("p_unsubscribe_hash", type_=String()),
        bindparam("p_now", type_=DateTime(timezone=True)),
    ).where(Subscriber.id == bindparam("p_subscriber_id"), Subscriber.status == "confirmed"),
)
_MARK = (
    update(Delivery)
    .where(Delivery.issue_id == bindparam("p_issue_id"), Delivery.subscriber_id == bindparam("p_subscriber_id"))
    .values(status="sent", sent_at=bindparam("p_now"))
)


def delivery_name(issue_id: str, subscriber_id: int) -> str:
    return f"{issue_id}-{subscriber_id}"


@dataclass(eq=False)
class IssueSender:
    database: Database
    transport: Transport
    mailer: Mailer
    clock: Callable[[], datetime]
    batch: int = BATCH

    def _register(self, issue: IssueFile, now: datetime) -> None:
        def work(session: Session) -> None:
            stored = session.get(Issue, issue.id)
            if stored is None:
                session.add(
                    Issue(
                        id=issue.id,
                        content_sha256=issue.content_sha256,
                        subject=issue.versions[issue.language].subject,
                        created_at=now,
                    )
                )
                session.flush()
            elif stored.content_sha256 != issue.content_sha256:
                raise IssueChangedError(
                    f"issue {issue.id!r} was already sent with other content; give the new text another id "
                    "(front matter `id:`) to send it as a new issue"
                )

        try:
            self.database.transaction(work, write=True)
        except IntegrityError:  # another run registered it at the same moment: compare with that one
            self.database.transaction(work, write=True)

    def _settle(self, issue_id: str, now: datetime) -> tuple[int, int]:
        """Resolve what a previous run left `sending`; the mails already sent and the uncertain ones."""
        uncertain = 0
        after = 0
        while True:
            rows = self.database.transaction(partial(self._interrupted, issue_id, after), write=False)
            if not rows:
                break
            for subscriber_id in rows:
                after = subscriber_id
                delivered = self.transport.delivered(delivery_name(issue_id, subscriber_id))
                if delivered is None:
                    uncertain += 1
                    continue
                key = and_(Delivery.issue_id == issue_id, Delivery.subscriber_id == subscriber_id)
                statement = (
                    update(Delivery).where(key).values(status="sent", sent_at=now)
                    if delivered
                    else delete(Delivery).where(key)
                )
                self.database.transaction(partial(_execute, statement), write=True)
        sent = self.database.transaction(partial(_execute, _sent_count(issue_id)), write=False).scalar()
        return int(sent or 0), uncertain

    def _interrupted(self, issue_id: str, after: int, session: Session) -> list[int]:
        return list(
            session.scalars(
                select(Delivery.subscriber_id)
                .where(Delivery.issue_id == issue_id, Delivery.status == "sending", Delivery.subscriber_id > after)
                .order_by(Delivery.subscriber_id)
                .limit(self.batch)
            )
        )

    def send(self, issue: IssueFile, progress: Callable[[int], None] | None = None) -> SendReport:
        """Mail the issue to every confirmed subscriber not mailed yet; raises SendStoppedError when the
        transport fails (what was sent stays recorded) and IssueChangedError for a changed issue."""
        now = self.clock()
        self._register(issue, now)
        already, uncertain = self._settle(issue.id, now)
        sent = 0
        after = 0
        previous: int | None = None  # sent, not yet marked: marked with the next claim
        try:
            while True:
                recipients = self.database.transaction(partial(self._recipients, issue.id, after), write=False)
                if not recipients:
                    break
                for subscriber_id, email, language in recipients:
                    after = subscriber_id
                    version = issue.version_for(language)
                    token, hashed = new_token()
                    claim = partial(self._claim, issue.id, subscriber_id, version.language, hashed, previous, now)
                    claimed = self.database.transaction(claim, write=True)
                    previous = None
                    if not claimed:  # unsubscribed since the batch was read
                        continue
                    name = delivery_name(issue.id, subscriber_id)
                    message_id = f"<{name}@{self.mailer.host}>"
                    message = self.mailer.issue(email, version, message_id, token, now)
                    try:
                        self.transport.send(message, name)
                    except TransportError as error:
                        self._release(issue.id, subscriber_id)
                        raise SendStoppedError(
                            f"{error}; stopped after {sent} mail(s) in this run, run the same command again to "
                            "send the rest",
                            sent,
                        ) from error
                    previous = subscriber_id
                    sent += 1
                    if progress is not None:
                        progress(sent)
        finally:
            if previous is not None:
                self.database.transaction(partial(self._mark, issue.id, previous, now), write=True)
            self.transport.close()
        return SendReport(issue.id, sent, already, uncertain)

    def _recipients(self, issue_id: str, after: int, session: Session) -> list[tuple[int, str, str]]:
        already = exists().where(Delivery.issue_id == issue_id, Delivery.subscriber_id == Subscriber.id)
        statement = (
            select(Subscriber.id, Subscriber.email, Subscriber.language)
            .where(Subscriber.status == "confirmed", Subscriber.id > after, ~already)
            .order_by(Subscriber.id)
            .limit(self.batch)
        )
        return [(row[0], row[1], row[2]) for row in session.execute(statement)]

    @staticmethod
    def _mark(issue_id: str, subscriber_id: int, now: datetime, session: Session) -> None:
        session.connection().execute(_MARK, {"p_issue_id": issue_id, "p_subscriber_id": subscriber_id, "p_now": now})

    def _claim(
        self,
        issue_id: str,
        subscriber_id: int,
        language: str,
        unsubscribe_hash: str,
        previous: int | None,
        now: datetime,
        session: Session,
    ) -> bool:
        if previous is not None:
            self._mark(issue_id, previous, now, session)
        # Only while the subscriber is still confirmed, decided by the insert itself.
        parameters = {
            "p_issue_id": issue_id,
            "p_subscriber_id": subscriber_id,
            "p_language": language,
            "p_unsubscribe_hash": unsubscribe_hash,
            "p_now": now,
        }
        result = session.connection().execute(_CLAIM, parameters)  # Core: with a dict, the ORM would bulk-insert
        return bool(result.rowcount)

    def _release(self, issue_id: str, subscriber_id: int) -> None:
        statement = delete(Delivery).where(Delivery.issue_id == issue_id, Delivery.subscriber_id == subscriber_id)
        self.database.transaction(partial(_execute, statement), write=True)


def _execute(statement: Executable, session: Session) -> Result[Any]:
    return session.execute(statement)


def _sent_count(issue_id: str) -> Select[int]:
    return select(func.count()).where(Delivery.issue_id == issue_id, Delivery.status == "sent")
