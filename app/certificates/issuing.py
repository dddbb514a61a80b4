"""Issuing certificates: the claim step after a passed exam, the operator's issue and revoke, the listing and
the exam replay.

Issuing is one transaction: the certificate row with its signed bytes (JSON with an embedded proof, the JWS, the
QR summary), its status-list index and the claim that points at it commit together or not at all, so a crash
leaves either a whole certificate or nothing. The bytes are signed once and stored; nothing rebuilds them.

Concurrency:
- A learner's claims are serialised by the learner row: SQLite's BEGIN IMMEDIATE, and on PostgreSQL the upsert of
  the learner row, which locks it until commit. The second of two parallel claims therefore sees the first one's
  claim and returns the same certificate. The claim's primary key (learner, course version) backs this up: an
  insert that still conflicts rolls the whole issue back and the claim is read again.
- Status-list indexes: the list row is locked (SELECT ... FOR UPDATE) while an index is drawn, and
  UNIQUE(status_list, status_index) refuses a duplicate whatever happens.
- Revocation locks the list row too, flips the bit and re-signs the list credential in the same transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.certificates import credential as documents
from app.certificates.course import Course
from app.certificates.credential import Achievement, DrawnQuestion, ExamEvidence, Issuer
from app.certificates.errors import (
    CertificateNotFoundError,
    CertificateRateLimitedError,
    InvalidNameError,
    NotEligibleError,
)
from app.certificates.ids import new_certificate_id, normalise
from app.certificates.messages import (
    ACHIEVEMENT_CRITERIA,
    BADGE_CAPTION,
    EVIDENCE_DESCRIPTION,
    EVIDENCE_NAME,
    OPERATOR_EVIDENCE_DESCRIPTION,
    OPERATOR_EVIDENCE_NAME,
    CertificateText,
    skills,
)
from app.certificates.models import Certificate, CertificateClaim
from app.certificates.names import NameRejectedError, normalise_name
from app.certificates.policy import CertificatePolicy
from app.certificates.publishing import PublishingService
from app.certificates.qr import QrSummary, sign_summary
from app.certificates.readmodels import (
    CertificateSummary,
    Claim,
    ExamQuestion,
    ExamReplay,
    Issued,
    Listed,
    NamePreview,
    listed,
)
from app.certificates.signing import add_proof, sign_jws
from app.conflict import insert_or_ignore
from app.context import RequestContext
from app.db import Database, DatabaseUnavailableError
from app.learners.service import ensure_learner
from app.quiz.bank import Quiz, render_text
from app.quiz.models import QuizAttempt, aware
from app.quiz.service import QuizService
from app.ratelimit import check_and_count

T = TypeVar("T")
MAX_EMAIL_LENGTH = 254
MAX_REASON_LENGTH = 200
ISSUE_RETRIES = 5

_INSERT_CLAIM = insert_or_ignore(CertificateClaim, returning=[CertificateClaim.certificate_id])


class _LostRaceError(Exception):
    """Another transaction claimed first; the claim is read again."""


@dataclass(eq=False)
class IssuingService:
    database: Database
    quiz: QuizService
    publishing: PublishingService
    issuer: Issuer
    course: Course
    text: Callable[[str], CertificateText]
    languages: Mapping[str, Any]
    clock: Callable[[], datetime]
    policy: CertificatePolicy

    # --- claiming ------------------------------------------------------------------------------------------

    async def claim_status(self, context: RequestContext) -> Claim:
        """The claim step: raises NotEligibleError unless the learner has passed the final exam."""

        def work(session: Session) -> Claim:
            attempt = self._passed_attempt(session, context.learner_id)
            return Claim(self._claimed(session, context.learner_id), attempt.score_percent or 0)

        if not context.returning:
            self._exam()
            raise NotEligibleError()
        return await self.database.run(work)

    async def current(self, context: RequestContext) -> CertificateSummary | None:
        """The learner's certificate for this course version, for home and the exam page to show; None when
        there is none yet, or when the database does not answer (those pages still open)."""
        if not context.returning:
            return None
        try:
            return await self.database.run(lambda session: self._claimed(session, context.learner_id))
        except DatabaseUnavailableError:
            return None

    def _claimed(self, session: Session, learner_id: str) -> CertificateSummary | None:
        claim = session.get(CertificateClaim, (learner_id, self.course.version))
        row = session.get(Certificate, claim.certificate_id) if claim is not None else None
        if row is None:
            return None
        return CertificateSummary(
            row.id, row.name, aware(row.issued_at), _email_of(row) is not None, self.issuer.certificate_url(row.id)
        )

    @staticmethod
    def preview(name: str) -> NamePreview:
        """The name as the certificate would print it, by the very rule issuing applies, or why it could not."""
        if not name.strip():
            return NamePreview(name, None, None)
        try:
            return NamePreview(name, normalise_name(name), None)
        except NameRejectedError as problem:
            return NamePreview(name, None, problem.code)

    async def claim_preview(self, context: RequestContext, name: str) -> tuple[Claim, NamePreview]:
        """The claim step (NotEligibleError unless the exam was passed) with a preview of the name."""
        return await self.claim_status(context), self.preview(name)

    async def claim(self, context: RequestContext, name: str, email: str | None) -> Issued:
        """The learner's certificate for this course version: the existing one for the same name (and e-mail),
        else a new one; a new name replaces (and revokes) the old certificate."""
        try:
            printed, address = self.checked_identity(name, email)
        except InvalidNameError as refused:
            # For the form shown again; a learner who may not claim at all is told that instead (NotEligibleError).
            refused.claim = await self.claim_status(context)
            raise

        def work(session: Session) -> Issued:
            if not context.returning:
                raise NotEligibleError()
            ensure_learner(session, context.learner_id, context.language)  # locks the learner: claims queue here
            attempt = self._passed_attempt(session, context.learner_id)
            claim = session.get(CertificateClaim, (context.learner_id, self.course.version))
            current = session.get(Certificate, claim.certificate_id) if claim is not None else None
            if current is not None and current.name == printed and _same_email(current, address):
                return Issued(current.id, self.issuer.certificate_url(current.id), created=False)
            refusal = check_and_count(
                session, [(f"cert:issue:l:{context.learner_id}", self.policy.issue_per_learner)], context.now
            )
            if refusal is not None:
                raise CertificateRateLimitedError(refusal.retry_after_s)
            row = self._issue(
                session,
                name=printed,
                email=address,
                language=context.language,
                now=context.now,
                learner_id=context.learner_id,
                attempt=attempt,
            )
            if claim is None:
                inserted = session.execute(
                    _INSERT_CLAIM.on(session).values(
                        learner_id=context.learner_id,
                        course_version=self.course.version,
                        certificate_id=row.id,
                        claimed_at=context.now,
                    )
                ).first()
                if inserted is None:
                    raise _LostRaceError
            else:
                assert current is not None
                self._revoke(session, current, "superseded", context.now, replaced_by=row.id)
                claim.certificate_id = row.id
                claim.claimed_at = context.now
            return Issued(row.id, self.issuer.certificate_url(row.id), created=True)

        return await self._retrying(work)

    async def issue(self, name: str, email: str | None, language: str) -> Issued:
        """A certificate issued by the operator (the CLI): no learner, no exam attempt behind it."""
        printed, address = self.checked_identity(name, email)
        if language not in self.languages:
            raise ValueError(f"unknown language {language!r}")

        def work(session: Session) -> Issued:
            row = self._issue(session, name=printed, email=address, language=language, now=self.clock())
            return Issued(row.id, self.issuer.certificate_url(row.id), created=True)

        return await self._retrying(work)

    async def _retrying(self, work: Callable[[Session], T]) -> T:
        for _ in range(ISSUE_RETRIES - 1):
            try:
                return await self.database.run(work, write=True)
            except (IntegrityError, _LostRaceError):
                continue  # a parallel claim or a status index taken meanwhile: read everything again
        return await self.database.run(work, write=True)

    def checked_identity(self, name: str, email: str | None) -> tuple[str, str | None]:
        """The name as it will print and the address as it will be hashed, or InvalidNameError saying why not."""
        address = (email or "").strip().lower() or None
        try:
            printed = normalise_name(name)
        except NameRejectedError as problem:
            raise InvalidNameError(problem.code, name, email) from None
        if address is not None and not _valid_email(address):
            raise InvalidNameError("email", name, email)
        return printed, address

    def _exam(self) -> Quiz:
        exam = self.quiz.catalog.exam
        if exam is None:
            raise NotEligibleError("no_exam")
        return exam

    def _passed_attempt(self, session: Session, learner_id: str) -> QuizAttempt:
        exam = self._exam()
        attempt = session.scalars(
            select(QuizAttempt)
            .where(
                QuizAttempt.learner_id == learner_id,
                QuizAttempt.quiz_id == exam.id,
                QuizAttempt.passed.is_(True),
            )
            .order_by(QuizAttempt.finished_at.desc())
            .limit(1)
        ).first()
        if attempt is None:
            raise NotEligibleError()
        return attempt

    # --- issuing (inside a write transaction) --------------------------------------------------------------

    def _issue(
        self,
        session: Session,
        *,
        name: str,
        email: str | None,
        language: str,
        now: datetime,
        learner_id: str | None = None,
        attempt: QuizAttempt | None = None,
    ) -> Certificate:
        now = now.replace(microsecond=0)
        key = self.publishing.keys.active
        self.publishing.register_key(session, key, now)
        status_list, index = self.publishing.entry(session, now)
        certificate_id = new_certificate_id()
        text = self.text(language)
        unsigned = documents.open_badge_credential(
            issuer=self.issuer,
            certificate_id=certificate_id,
            issued_at=now,
            achievement=self._achievement(text, aware(attempt.finished_at) if attempt and attempt.finished_at else now),
            subject_identifiers=documents.identifiers(name, email, documents.new_salt() if email else None),
            status=documents.status_entry(self.issuer, status_list.number, index),
            evidence=[self._evidence(text, attempt)],
        )
        signed = add_proof(unsigned, key.private, self.issuer.method_id(key.thumbprint), documents.timestamp(now))
        jws = sign_jws(documents.jwt_payload(unsigned), key.private, self.issuer.jws_kid(key.thumbprint))
        summary = QrSummary(certificate_id, name, self.course.titles[language], now.date().isoformat(), key.thumbprint)
        row = Certificate(
            id=certificate_id,
            learner_id=learner_id,
            attempt_id=attempt.id if attempt is not None else None,
            course_version=self.course.version,
            name=name,
            language=language,
            issued_at=now,
            key_id=key.thumbprint,
            credential=json.dumps(signed, ensure_ascii=False, indent=2) + "\n",
            jws=jws,
            qr_payload=sign_summary(summary, key),
            status_list=status_list.number,
            status_index=index,
        )
        session.add(row)
        status_list.allocated += 1
        session.flush()
        return row

    def _achievement(self, text: CertificateText, passed_at: datetime) -> Achievement:
        exam = self._exam()
        return Achievement(
            name=self.course.titles[text.language],
            description=self.course.descriptions[text.language],
            criteria=text.get(
                ACHIEVEMENT_CRITERIA,
                date=passed_at.date().isoformat(),
                count=exam.draw,
                worked=exam.min_worked,
                minutes=(exam.time_limit_s or 0) // 60,
                percent=exam.pass_percent,
            ),
            criteria_url=f"{self.issuer.base_url}/{text.language}/exam",
            language=text.language,
            image_url=self.issuer.badge_url("png"),
            image_caption=text.get(BADGE_CAPTION, course=self.course.titles[text.language]),
            tags=skills(text),
        )

    def _evidence(self, text: CertificateText, attempt: QuizAttempt | None) -> dict[str, Any]:
        if attempt is None:
            return {
                "type": ["Evidence"],
                "name": text.get(OPERATOR_EVIDENCE_NAME),
                "description": text.get(OPERATOR_EVIDENCE_DESCRIPTION),
                "contentVersion": self.course.version,
            }
        exam = self._exam()
        evidence = ExamEvidence(
            seed=attempt.seed,
            questions=tuple(DrawnQuestion(str(item["id"]), dict(item["params"])) for item in attempt.questions),
            score_percent=attempt.score_percent or 0,
            pass_percent=exam.pass_percent,
            finished_at=aware(attempt.finished_at or attempt.started_at),
            content_version=self.course.version,
        )
        return documents.evidence_entry(evidence, text.get(EVIDENCE_NAME), text.get(EVIDENCE_DESCRIPTION))

    # --- revoking ------------------------------------------------------------------------------------------

    async def revoke(self, raw_id: str, reason: str) -> Listed:
        reason = " ".join(reason.split())[:MAX_REASON_LENGTH]
        if not reason:
            raise ValueError("a revocation needs a reason")
        certificate_id = normalise(raw_id)

        def work(session: Session) -> Listed:
            row = session.get(Certificate, certificate_id, with_for_update=True) if certificate_id else None
            if row is None:
                raise CertificateNotFoundError(raw_id)
            self._revoke(session, row, reason, self.clock())
            return listed(row)

        return await self.database.run(work, write=True)

    def _revoke(
        self, session: Session, row: Certificate, reason: str, now: datetime, replaced_by: str | None = None
    ) -> None:
        if row.revoked_at is not None:
            return
        now = now.replace(microsecond=0)
        self.publishing.set_bit(session, row.status_list, row.status_index, now)
        row.revoked_at = now
        row.revocation_reason = reason
        row.replaced_by = replaced_by
        session.flush()

    # --- the operator's commands ---------------------------------------------------------------------------

    async def listing(self) -> list[Listed]:
        def work(session: Session) -> list[Listed]:
            return [listed(row) for row in session.scalars(select(Certificate).order_by(Certificate.issued_at))]

        return await self.database.run(work)

    async def exam_replay(self, raw_id: str, language: str) -> ExamReplay:
        """The exam the certificate's evidence records, regenerated from the bank: prompts with the drawn
        parameters, options unmarked, no answers."""
        certificate_id = normalise(raw_id)

        def work(session: Session) -> Certificate | None:
            return session.get(Certificate, certificate_id) if certificate_id else None

        row = await self.database.run(work)
        if row is None:
            raise CertificateNotFoundError(raw_id)
        stored = json.loads(row.credential)
        evidence = next((item for item in stored.get("evidence", []) if "exam" in item), None)
        exam = self.quiz.catalog.exam
        questions: list[ExamQuestion] = []
        recorded = evidence["exam"] if evidence else {}
        for number, item in enumerate(recorded.get("questions", []), start=1):
            question = exam.question(item["id"]) if exam is not None else None
            parameters = item.get("parameters", {})
            if question is None:
                questions.append(ExamQuestion(number, item["id"], "?", "", (), None, parameters, in_bank=False))
                continue
            questions.append(
                ExamQuestion(
                    number,
                    question.id,
                    question.type,
                    render_text(question.prompt.get(language), parameters, language),
                    tuple(option.text.get(language) for option in question.options),
                    question.unit,
                    parameters,
                    in_bank=True,
                )
            )
        return ExamReplay(
            certificate_id=row.id,
            seed=recorded.get("seed"),
            content_version=evidence.get("contentVersion") if evidence else None,
            current_content_version=self.course.version,
            score_percent=recorded.get("scorePercent"),
            pass_percent=recorded.get("passPercent"),
            questions=tuple(questions),
        )


def _valid_email(email: str) -> bool:
    local, _, domain = email.rpartition("@")
    return (
        bool(local)
        and "." in domain.strip(".")
        and len(email) <= MAX_EMAIL_LENGTH
        and not any(character.isspace() or ord(character) < 32 for character in email)
        and "@" not in domain
    )


def _email_of(row: Certificate) -> dict[str, Any] | None:
    try:
        stored = json.loads(row.credential)
    except ValueError:
        return None
    for item in stored.get("credentialSubject", {}).get("identifier", []):
        if isinstance(item, dict) and item.get("identityType") == "emailAddress":
            return item
    return None


def _same_email(row: Certificate, email: str | None) -> bool:
    stored = _email_of(row)
    if stored is None or email is None:
        return stored is None and email is None
    return stored.get("identityHash") == documents.identity_hash(email, str(stored.get("salt", "")))
