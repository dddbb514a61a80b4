"""The certificate service: claim (or issue) a certificate, look one up and verify it, revoke it, publish the
status lists and the issuer's keys.

Like QuizService it is built once with what it needs, owns its transactions (through `Database.run`, which picks
the event loop or a thread) and raises domain errors (`app.certificates.errors`).

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

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from anyio import to_thread
from sqlalchemy import Connection, bindparam, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.certificates import credential as documents
from app.certificates.credential import Achievement, DrawnQuestion, ExamEvidence, Issuer
from app.certificates.encoding import public_key_from_multibase
from app.certificates.errors import (
    ArtifactUnavailableError,
    CertificateNotFoundError,
    CertificateRateLimitedError,
    InvalidNameError,
    NotEligibleError,
    StatusListNotFoundError,
)
from app.certificates.ids import new_certificate_id, normalise
from app.certificates.keys import KeyRing, PublicKey, SigningKey
from app.certificates.messages import (
    ACHIEVEMENT_CRITERIA,
    EVIDENCE_DESCRIPTION,
    EVIDENCE_NAME,
    OPERATOR_EVIDENCE_DESCRIPTION,
    OPERATOR_EVIDENCE_NAME,
    PDF_AWARDED_TO,
    PDF_COMPLETED,
    PDF_ID,
    PDF_ISSUED,
    PDF_KEY,
    PDF_REVOKED,
    PDF_SCAN,
    PDF_TITLE,
    PDF_VERIFY,
    PREVIEW_INVALID,
    PREVIEW_REVOKED,
    PREVIEW_VERIFIED,
    CertificateText,
)
from app.certificates.models import Certificate, CertificateClaim, CertificateKey, StatusList
from app.certificates.names import NameRejectedError, normalise_name
from app.certificates.pdf import Fonts, Preview, PrintedCertificate, render_pdf, render_preview
from app.certificates.qr import QrCheck, QrSummary, matrix, sign_summary, verify_fragment
from app.certificates.readmodels import (
    CertificateSummary,
    CertificateView,
    Claim,
    CredentialFacts,
    ExamQuestion,
    ExamReplay,
    Issued,
    Listed,
    StoredCertificate,
    certificate_view,
    credential_facts,
    listed,
)
from app.certificates.signing import VerifiedSignatures, add_proof, sign_jws
from app.certificates.statuslist import FILL_LIMIT, LIST_SIZE, empty_bits, free_index, is_set, with_bit
from app.certificates.verification import Check, Prepared, Verification, Verifier
from app.context import RequestContext
from app.db import Database, DatabaseUnavailableError
from app.learners.service import ensure_learner
from app.quiz.bank import Quiz, render_text
from app.quiz.models import QuizAttempt, aware
from app.quiz.service import QuizService
from app.ratelimit import MICROSECONDS, SLOTS, Limit, RateLimitSlot, check_and_count
from app.remembered import Remembered

T = TypeVar("T")
MAX_EMAIL_LENGTH = 254
MAX_REASON_LENGTH = 200
ISSUE_RETRIES = 5
ARTIFACTS_REMEMBERED = 64
PREPARED_REMEMBERED = 512  # stored certificates whose parsed and hashed bytes are kept (a few KiB each)


@dataclass(frozen=True, slots=True)
class CertificatePolicy:
    """Misses (malformed and unknown ids alike) per client address: past the limit every lookup from that address
    is refused, hits included, so that guessing ids gets nowhere; verifications per address; a learner's issues
    (a claim, each name correction) per day."""

    miss_per_client: Limit = field(default_factory=lambda: Limit(30, 600))
    verify_per_client: Limit = field(default_factory=lambda: Limit(120, 60))
    issue_per_learner: Limit = field(default_factory=lambda: Limit(10, 86_400))


@dataclass(frozen=True, slots=True)
class Course:
    """What the credential says of the course, per language, and the version of its content."""

    titles: Mapping[str, str]
    descriptions: Mapping[str, str]
    version: str


def content_version(directory: Path) -> str:
    """SHA-256 over every file under content/ (relative path and bytes, in path order): the course version a
    certificate was earned on."""
    digest = hashlib.sha256()
    for path in sorted(item for item in directory.rglob("*") if item.is_file()):
        relative = path.relative_to(directory).as_posix().encode("utf-8")
        digest.update(len(relative).to_bytes(4, "big") + relative)
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return f"sha256:{digest.hexdigest()}"


def _valid_email(email: str) -> bool:
    local, _, domain = email.rpartition("@")
    return (
        bool(local)
        and "." in domain.strip(".")
        and len(email) <= MAX_EMAIL_LENGTH
        and not any(character.isspace() or ord(character) < 32 for character in email)
        and "@" not in domain
    )


class _LostRaceError(Exception):
    """Another transaction claimed first; the claim is read again."""


@dataclass(frozen=True, slots=True)
class _PreparedCertificate:
    """A stored certificate's two encodings with every check their bytes alone decide already done (see
    `Verifier.checked` for what is checked on every view); `document` is None when the stored credential is not
    a JSON object."""

    document: Prepared | None
    token: Prepared
    same_copy: bool  # the JWS's payload is the embedded-proof credential without its proof
    facts: CredentialFacts


_UPSERT_KEY = {
    "sqlite": sqlite.insert(CertificateKey).on_conflict_do_nothing(index_elements=[CertificateKey.id]),
    "postgresql": postgresql.insert(CertificateKey).on_conflict_do_nothing(index_elements=[CertificateKey.id]),
}
_INDEX_TAKEN = select(Certificate.id).where(
    Certificate.status_list == bindparam("number"), Certificate.status_index == bindparam("index")
)
_STATUS_BYTE = select(
    func.length(StatusList.bits).label("length"),
    func.substr(StatusList.bits, bindparam("byte"), 1).label("byte"),
).where(StatusList.number == bindparam("number"))
_PUBLIC_KEY = select(CertificateKey.public_key).where(CertificateKey.id == bindparam("id"))
_LIST = StatusList.__table__.alias("status_list")
_RECHECK = select(
    *Certificate.__table__.columns,
    select(func.length(_LIST.c.bits))
    .where(_LIST.c.number == Certificate.status_list)
    .scalar_subquery()
    .label("status_length"),
    select(func.substr(_LIST.c.bits, Certificate.status_index // 8 + 1, 1))
    .where(_LIST.c.number == Certificate.status_list)
    .scalar_subquery()
    .label("status_byte"),
).where(Certificate.id == bindparam("id"))
_SLOTS = select(RateLimitSlot.slot_start_us, RateLimitSlot.count).where(
    RateLimitSlot.key == bindparam("key"), RateLimitSlot.slot_start_us >= bindparam("oldest")
)
_INSERT_CLAIM = {
    "sqlite": sqlite.insert(CertificateClaim).on_conflict_do_nothing().returning(CertificateClaim.certificate_id),
    "postgresql": postgresql.insert(CertificateClaim)
    .on_conflict_do_nothing()
    .returning(CertificateClaim.certificate_id),
}


class CertificateService:
    def __init__(
        self,
        database: Database,
        quiz: QuizService,
        keys: KeyRing,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        *,
        issuer: Issuer,
        course: Course,
        translations: Mapping[str, Any],
        policy: CertificatePolicy | None = None,
        fonts: Fonts | None = None,
        key_file: Path | None = None,
    ) -> None:
        self.database = database
        self.quiz = quiz
        self.keys = keys
        self.clock = clock
        self.issuer = issuer
        self.course = course
        self.translations = translations
        self.policy = policy or CertificatePolicy()
        self.fonts = fonts if fonts is not None else Fonts.find()
        self.key_file = key_file
        self._artifacts: Remembered[tuple[str, ...], bytes] = Remembered(ARTIFACTS_REMEMBERED)
        self._prepared: Remembered[tuple[str, str], _PreparedCertificate] = Remembered(PREPARED_REMEMBERED)
        # The stored JWS of each certificate shown: its signature is checked the first time its exact bytes are
        # seen, the credential's own proof on every request (see `_view`).
        self._jws_verified = VerifiedSignatures()

    def text(self, language: str) -> CertificateText:
        return CertificateText(self.translations[language], language)

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

    async def claim(self, context: RequestContext, name: str, email: str | None) -> Issued:
        """The learner's certificate for this course version: the existing one for the same name (and e-mail),
        else a new one; a new name replaces (and revokes) the old certificate."""
        printed, address = self._checked_identity(name, email)

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
                    _INSERT_CLAIM[session.get_bind().dialect.name].values(
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
        printed, address = self._checked_identity(name, email)
        if language not in self.translations:
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

    def _checked_identity(self, name: str, email: str | None) -> tuple[str, str | None]:
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
        key = self.keys.active
        self._register_key(session, key, now)
        status_list = self._open_list(session, now)
        index = self._free_index(session, status_list)
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

    def _register_key(self, session: Session, key: SigningKey, now: datetime) -> None:
        session.execute(
            _UPSERT_KEY[session.get_bind().dialect.name].values(
                id=key.thumbprint, public_key=key.public.multibase, created_at=now
            )
        )

    def _open_list(self, session: Session, now: datetime) -> StatusList:
        """The list that takes new certificates (locked), or a new one when the last is half full."""
        latest = session.scalars(
            select(StatusList).order_by(StatusList.number.desc()).limit(1).with_for_update()
        ).first()
        if latest is not None and latest.allocated < FILL_LIMIT:
            return latest
        number = (latest.number + 1) if latest is not None else 1
        bits = empty_bits(LIST_SIZE)
        created = StatusList(
            number=number,
            size=LIST_SIZE,
            allocated=0,
            bits=bits,
            credential=self._signed_list(number, bits, now),
            updated_at=now,
        )
        session.add(created)
        session.flush()  # a parallel creation of the same number fails here (IntegrityError: retried)
        return created

    @staticmethod
    def _free_index(session: Session, status_list: StatusList) -> int:
        def is_taken(index: int) -> bool:
            return session.scalar(_INDEX_TAKEN, {"number": status_list.number, "index": index}) is not None

        return free_index(is_taken, status_list.size)

    def _signed_list(self, number: int, bits: bytes, now: datetime) -> str:
        key = self.keys.active
        unsigned = documents.status_list_credential(self.issuer, number, bits, now)
        signed = add_proof(unsigned, key.private, self.issuer.method_id(key.thumbprint), documents.timestamp(now))
        return json.dumps(signed, ensure_ascii=False, indent=2) + "\n"

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
        status_list = session.scalars(
            select(StatusList).where(StatusList.number == row.status_list).with_for_update()
        ).one()
        status_list.bits = with_bit(status_list.bits, row.status_index)
        status_list.credential = self._signed_list(status_list.number, status_list.bits, now)
        status_list.updated_at = now
        row.revoked_at = now
        row.revocation_reason = reason
        row.replaced_by = replaced_by
        session.flush()

    # --- reading and verifying -----------------------------------------------------------------------------

    async def _lookup(self, client: str, raw_id: str, read: Callable[[Session, Certificate, datetime], T]) -> T:
        """`read` of the certificate an id (as typed) names.

        A lookup of a known id only reads: the page everyone is sent to must not queue for SQLite's write lock (a
        write per view cost nine tenths of the page's throughput). Only a miss writes, counting against the
        address's allowance of misses, and once that is spent further unknown ids get 429 while known ones keep
        answering: a page with thirty cross-site <img> tags, or a campus behind one NAT, must not lock everyone
        there out of real certificates. That a hit then answers differently from a miss tells nothing: ids are
        128 random bits, so there is no hit to find by guessing."""
        certificate_id = normalise(raw_id)
        key = _miss_key(client)
        found = await self.database.run(self._reading(key, certificate_id, read))
        if found is not None:
            return found[0]

        def miss(session: Session) -> int | None:
            refusal = check_and_count(session, [(key, self.policy.miss_per_client)], self.clock())
            return refusal.retry_after_s if refusal is not None else None

        wait = await self.database.run(miss, write=True)
        if wait is not None:
            raise CertificateRateLimitedError(wait)
        raise CertificateNotFoundError(raw_id)

    def _reading(
        self, miss_key: str, certificate_id: str | None, read: Callable[[Session, Certificate, datetime], T]
    ) -> Callable[[Session], tuple[T] | None]:
        """The read-only half of a lookup: `read` of the row; None when there is none and the address may still
        miss, and refused (429) when it has spent its misses."""

        def work(session: Session) -> tuple[T] | None:
            now = self.clock()
            row = session.get(Certificate, certificate_id) if certificate_id is not None else None
            if row is not None:
                return (read(session, row, now),)
            wait = _refused(session, miss_key, self.policy.miss_per_client, now)
            if wait is not None:
                raise CertificateRateLimitedError(wait)
            return None

        return work

    async def certificate(self, client: str, raw_id: str) -> CertificateView:
        """The certificate, verified from its stored bytes now."""
        return await self._lookup(client, raw_id, lambda session, row, now: self._view(session.connection(), row, now))

    async def recheck(self, raw_id: str) -> CertificateView | None:
        """`certificate` for a page already shown once: verified from its stored bytes now, or None when it
        would not be found (the caller then asks `certificate`, which answers, and counts, that). One statement
        reads the row and the byte of its status entry: this is what every view of a shared certificate link
        costs. A known id answers whatever the address's misses (see `_lookup`)."""
        certificate_id = normalise(raw_id)
        if certificate_id is None:
            return None

        def work(connection: Connection) -> CertificateView | None:
            now = self.clock()
            found = connection.execute(_RECHECK, {"id": certificate_id}).first()
            if found is None:
                return None
            status = StatusByte(
                (found.status_list, found.status_index // 8 + 1),
                (found.status_length, bytes(found.status_byte)) if found.status_length is not None else None,
            )
            return self._view(connection, found, now, status)

        return await self.database.read(work)

    async def check_fragment(self, client: str, raw_id: str, fragment: str) -> tuple[CertificateView, QrCheck, bool]:
        """The QR code's signed summary checked against the issuer's keys, and whether it describes this
        certificate (same id, name and date)."""

        def read(session: Session, row: Certificate, now: datetime) -> tuple[CertificateView, QrCheck, bool]:
            view = self._view(session.connection(), row, now)
            check = verify_fragment(fragment, lambda thumbprint: self._public_key(session.connection(), thumbprint))
            summary = check.summary
            matches = summary is not None and (
                summary.certificate_id == row.id
                and summary.name == view.name
                and summary.date == (view.issued_at.date().isoformat() if view.issued_at else None)
            )
            return view, check, matches

        return await self._lookup(client, raw_id, read)

    async def artifact(self, client: str, raw_id: str, kind: str) -> tuple[str, bytes]:
        """The stored bytes ("json", "jwt") or a derived file ("pdf", "png"), with the id they belong to."""

        def read(session: Session, row: Certificate, now: datetime) -> tuple[Certificate, CertificateView | None]:
            return row, (self._view(session.connection(), row, now) if kind in ("pdf", "png") else None)

        row, view = await self._lookup(client, raw_id, read)
        if kind == "json":
            return row.id, row.credential.encode("utf-8")
        if kind == "jwt":
            return row.id, row.jws.encode("ascii")
        assert view is not None
        key = (row.id, kind, view.state, str(row.revoked_at))
        cached = self._artifacts.get(key)
        if cached is None:
            fonts = self.fonts
            if fonts is None:
                raise ArtifactUnavailableError(kind)
            render = self._pdf if kind == "pdf" else self._preview
            cached = await to_thread.run_sync(render, view, row.qr_payload, fonts)
            self._artifacts.put(key, cached)
        return row.id, cached

    def _pdf(self, view: CertificateView, qr_payload: str, fonts: Fonts) -> bytes:
        text = self.text(view.language)
        revoked = None
        if view.revoked_at is not None:
            revoked = text.get(
                PDF_REVOKED, date=view.revoked_at.date().isoformat(), reason=text.reason(view.revocation_reason)
            )
        page = PrintedCertificate(
            issuer=view.issuer_name or self.issuer.name,
            title=text.get(PDF_TITLE),
            awarded_to=text.get(PDF_AWARDED_TO),
            name=view.name or "",
            completed=text.get(PDF_COMPLETED),
            course=view.course or "",
            issued_label=text.get(PDF_ISSUED),
            issued=view.issued_at.date().isoformat() if view.issued_at else "",
            id_label=text.get(PDF_ID),
            certificate_id=view.id,
            verify_label=text.get(PDF_VERIFY),
            verify_url=view.url,
            key_label=text.get(PDF_KEY),
            key=view.key.fingerprint if view.key else "",
            scan=text.get(PDF_SCAN),
            language=view.language,
            revoked=revoked,
        )
        return render_pdf(page, matrix(f"{view.url}#{qr_payload}"), fonts)

    def _preview(self, view: CertificateView, _qr_payload: str, fonts: Fonts) -> bytes:
        text = self.text(view.language)
        label = {"valid": PREVIEW_VERIFIED, "revoked": PREVIEW_REVOKED}.get(view.state, PREVIEW_INVALID)
        preview = Preview(text.get(label), view.name or "", view.course or "", self.issuer.name)
        return render_preview(preview, fonts)

    def _public_key(self, connection: Connection, thumbprint: str) -> PublicKey | None:
        known = self.keys.public_keys().get(thumbprint)
        if known is not None:
            return known
        stored = connection.execute(_PUBLIC_KEY, {"id": thumbprint}).scalar()
        return PublicKey(public_key_from_multibase(stored)) if stored is not None else None

    def _verifier(
        self,
        connection: Connection,
        prefetched: StatusByte | None = None,
        jws_verified: VerifiedSignatures | None = None,
    ) -> Verifier:
        read: dict[tuple[int, int], tuple[int, bytes] | None] = {}
        if prefetched is not None:
            read[prefetched.place] = prefetched.found

        def revoked(number: int, index: int) -> bool | None:
            # Only the byte that holds the bit, once per verifier (the credential and its JWS name the same
            # entry): the list is 16 KiB, and this runs on every view of every certificate.
            place = (number, index // 8 + 1)
            if place not in read:
                row = connection.execute(_STATUS_BYTE, {"number": number, "byte": place[1]}).first()
                read[place] = (row.length, bytes(row.byte)) if row is not None else None
            found = read[place]
            if found is None or index >= found[0] * 8:
                return None
            return is_set(found[1], index % 8)

        return Verifier(self.issuer, lambda thumbprint: self._public_key(connection, thumbprint), revoked, jws_verified)

    def _view(
        self, connection: Connection, row: StoredCertificate, now: datetime, prefetched: StatusByte | None = None
    ) -> CertificateView:
        verifier = self._verifier(connection, prefetched, self._jws_verified)
        prepared = self._prepared_certificate(verifier, row.credential, row.jws)
        if prepared.document is None:
            verification = Verification((Check("format", False, "not_open_badge"),), None, None, None)
        else:
            verification = verifier.checked(prepared.document, now)
            from_jws = verifier.checked(prepared.token, now)
            jws_checks = [check for check in from_jws.checks if check.name in ("signature", "key", "jwt_claims")]
            extra = [Check("embedded_copy", prepared.same_copy, None if prepared.same_copy else "copies_differ")]
            extra += [
                Check(f"jwt_{check.name}" if check.name != "jwt_claims" else check.name, check.passed, check.problem)
                for check in jws_checks
                if not check.passed
            ]
            verification = Verification(
                (*verification.checks, *extra), verification.status, verification.credential, verification.key
            )
        return certificate_view(row, prepared.facts, verification, self.issuer)

    def _prepared_certificate(self, verifier: Verifier, credential: str, jws: str) -> _PreparedCertificate:
        """The stored bytes parsed, hashed and checked as far as they alone decide, remembered by the bytes
        themselves: a certificate whose stored bytes change is prepared anew."""
        key = (credential, jws)
        prepared = self._prepared.get(key)
        if prepared is None:
            try:
                stored = json.loads(credential)
            except ValueError:
                stored = None
            if not isinstance(stored, dict):
                prepared = _PreparedCertificate(None, verifier.prepare_jws(jws), False, credential_facts({}))
            else:
                token = verifier.prepare_jws(jws)
                unsigned = {name: value for name, value in stored.items() if name != "proof"}
                same = token.credential == documents.jwt_payload(unsigned) if "validFrom" in unsigned else False
                prepared = _PreparedCertificate(
                    verifier.prepare_document(stored), token, same, credential_facts(stored)
                )
            self._prepared.put(key, prepared)
        return prepared

    async def verify(self, client: str, submitted: Mapping[str, Any] | str | bytes) -> Verification:
        """A credential (with its proof) or a compact JWS; bytes are a request body as sent to the API, parsed
        strictly (Verifier.submitted)."""

        def work(session: Session) -> Verification:
            now = self.clock()
            refusal = check_and_count(session, [(f"cert:verify:c:{client}", self.policy.verify_per_client)], now)
            if refusal is not None:
                raise CertificateRateLimitedError(refusal.retry_after_s)
            verifier = self._verifier(session.connection())
            if isinstance(submitted, bytes):
                return verifier.submitted(submitted, now)
            if isinstance(submitted, str):
                return verifier.jws(submitted, now)
            return verifier.document(submitted, now)

        return await self.database.run(work, write=True)

    # --- what the issuer publishes -------------------------------------------------------------------------

    async def status_list(self, number: int | str) -> bytes:
        """The signed status list credential as stored (a number that is not one is simply not found)."""
        text = str(number)
        if not (text.isascii() and text.isdigit() and len(text) <= 9):
            raise StatusListNotFoundError(text)

        def work(session: Session) -> str | None:
            return session.scalar(select(StatusList.credential).where(StatusList.number == int(text)))

        stored = await self.database.run(work)
        if stored is None:
            raise StatusListNotFoundError(number)
        return stored.encode("utf-8")

    async def public_keys(self) -> list[PublicKey]:
        """Every key ever used here: the key file's, and those the database recorded (oldest first)."""

        def work(session: Session) -> list[str]:
            return list(session.scalars(select(CertificateKey.public_key).order_by(CertificateKey.created_at)))

        recorded = [PublicKey(public_key_from_multibase(item)) for item in await self.database.run(work)]
        keys = {key.thumbprint: key for key in recorded}
        for thumbprint, key in self.keys.public_keys().items():
            keys.setdefault(thumbprint, key)
        return list(keys.values())

    async def did_document(self) -> dict[str, Any]:
        return documents.did_document(self.issuer, await self.public_keys())

    async def jwks(self) -> dict[str, Any]:
        return documents.jwk_set(self.issuer, await self.public_keys())

    def profile(self) -> dict[str, Any]:
        return {"@context": [documents.VC_CONTEXT, documents.OB_CONTEXT], **self.issuer.profile()}

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

    def rotate_keys(self) -> SigningKey:
        """Append a new signing key to the key file; certificates signed before keep verifying."""
        if self.key_file is None:
            raise RuntimeError("no key file to rotate")
        self.keys = self.keys.rotated(self.key_file)
        now = self.clock().replace(microsecond=0)
        self.database.transaction(lambda session: self._register_key(session, self.keys.active, now), write=True)
        return self.keys.active


@dataclass(frozen=True, slots=True)
class StatusByte:
    """A byte of a status list read ahead: (list number, 1-based byte) -> (the list's length, the byte)."""

    place: tuple[int, int]
    found: tuple[int, bytes] | None


def _miss_key(client: str) -> str:
    return f"cert:miss:c:{client}"


def _refused(session: Session, key: str, limit: Limit, now: datetime) -> int | None:
    """Seconds until `key` may be counted again, or None when it is within `limit`: app.ratelimit's window (the
    slots overlapping the last `window_s`, as check_and_count sums them), read without counting anything."""
    now_us = round(now.timestamp() * MICROSECONDS)
    slot_us = limit.slot_us
    oldest = now_us - now_us % slot_us - SLOTS * slot_us
    slots = sorted(
        (start, count)
        for start, count in session.connection().execute(_SLOTS, {"key": key, "oldest": oldest})
        if start + (SLOTS + 1) * slot_us > now_us
    )
    total = sum(count for _, count in slots)
    if total < limit.requests:
        return None
    for start, count in slots:  # the wait until enough of the oldest slots have left the window
        total -= count
        if total < limit.requests:
            return max(1, -(-(start + (SLOTS + 1) * slot_us - now_us) // MICROSECONDS))
    return 1


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
