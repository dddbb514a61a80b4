"""What the certificate service hands out: a certificate as its verification page shows it, a claim's state, an
issued certificate's id and URL, a listing row, and the exam an evidence entry regenerates."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Literal, Protocol

from app.certificates import credential as documents
from app.certificates.credential import Issuer
from app.certificates.keys import PublicKey
from app.certificates.models import Certificate
from app.certificates.verification import Check, Verification
from app.quiz.models import aware

PageState = Literal["valid", "revoked", "invalid"]


@dataclass(frozen=True, slots=True)
class CertificateView:
    """A certificate as read from its stored, signed bytes, with the outcome of verifying them just now. The
    texts (name, course) come from the credential itself, never from other columns.

    Frozen and hashable by what the page shows (the verdict as `state` and `failed_checks`, not the
    `verification` it came from, which holds the parsed credential): two views that are equal render the same
    page, so a view is the key of the page's bytes."""

    id: str
    url: str  # the canonical verification URL
    qr_url: str  # the URL with the signed summary in its fragment
    verification: Verification = field(compare=False, repr=False)
    state: PageState
    failed_checks: tuple[Check, ...]  # what the page lists as failed (a revocation is shown as such instead)
    name: str | None
    course: str | None
    description: str | None
    language: str
    issued_at: datetime | None
    issuer_name: str | None
    issuer_id: str | None
    key: PublicKey | None
    score_percent: int | None
    pass_percent: int | None
    criteria: str | None  # what the certificate attests: the achievement's criteria narrative
    skills: tuple[str, ...]  # the achievement's tags
    revoked_at: datetime | None
    revocation_reason: str | None  # "superseded" (a name correction) or the operator's words
    replaced_by: str | None


def page_state(verification: Verification, revoked_at: datetime | None) -> PageState:
    if not verification.signature_valid:
        return "invalid"
    if verification.status == "revoked" or revoked_at is not None:
        return "revoked"
    return "valid" if verification.valid else "invalid"


@dataclass(frozen=True, slots=True)
class CertificateSummary:
    id: str
    name: str
    issued_at: datetime
    email_hashed: bool
    url: str  # the public verification page


@dataclass(frozen=True, slots=True)
class Claim:
    """The claim step for a learner who passed the exam: their current certificate, if they have one."""

    certificate: CertificateSummary | None
    score_percent: int


@dataclass(frozen=True, slots=True)
class NamePreview:
    """A name as the certificate would print it (`printed`), or why it cannot go on one (`problem`, a code of
    app.certificates.messages.NAME_PROBLEMS); both None for an empty field."""

    typed: str
    printed: str | None
    problem: str | None

    @property
    def changed(self) -> bool:
        """The printed name differs from what was typed (spaces collapsed, characters composed)."""
        return self.printed is not None and self.printed != self.typed


@dataclass(frozen=True, slots=True)
class Issued:
    id: str
    url: str
    created: bool  # False: the learner already had this certificate (same name), nothing was issued


@dataclass(frozen=True, slots=True)
class Listed:
    id: str
    name: str
    language: str
    issued_at: datetime
    learner: bool  # claimed by a learner (else issued by the operator from the CLI)
    revoked_at: datetime | None
    revocation_reason: str | None
    replaced_by: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "language": self.language,
            "issued_at": self.issued_at.isoformat(),
            "source": "claim" if self.learner else "cli",
            "status": "revoked" if self.revoked_at else "active",
            "revoked_at": self.revoked_at.isoformat() if self.revoked_at else None,
            "reason": self.revocation_reason,
            "replaced_by": self.replaced_by,
        }


@dataclass(frozen=True, slots=True)
class ExamQuestion:
    number: int
    question_id: str
    type: str
    prompt: str
    options: tuple[str, ...]  # in the bank's order, unmarked
    unit: str | None
    parameters: Mapping[str, Any]
    in_bank: bool  # False when the bank no longer has the question (only its id and parameters are known)


@dataclass(frozen=True, slots=True)
class ExamReplay:
    certificate_id: str
    seed: str | None
    content_version: str | None
    current_content_version: str
    score_percent: int | None
    pass_percent: int | None
    questions: tuple[ExamQuestion, ...]

    @property
    def content_changed(self) -> bool:
        return self.content_version != self.current_content_version


# --- built from the stored rows -----------------------------------------------------------------------


def listed(row: Certificate) -> Listed:
    return Listed(
        id=row.id,
        name=row.name,
        language=row.language,
        issued_at=aware(row.issued_at),
        learner=row.learner_id is not None or row.attempt_id is not None,
        revoked_at=aware(row.revoked_at) if row.revoked_at else None,
        revocation_reason=row.revocation_reason,
        replaced_by=row.replaced_by,
    )


def _identifier(stored: Mapping[str, Any], identity_type: str) -> str | None:
    subject = stored.get("credentialSubject")
    items: Iterable[Any] = subject.get("identifier", []) if isinstance(subject, Mapping) else []
    for item in items:
        if isinstance(item, Mapping) and item.get("identityType") == identity_type and not item.get("hashed"):
            value = item.get("identityHash")
            return value if isinstance(value, str) else None
    return None


class StoredCertificate(Protocol):
    """The columns a certificate's page is read from: a Certificate, or a row of a statement that selects them."""

    @property
    def id(self) -> str: ...
    @property
    def credential(self) -> str: ...
    @property
    def jws(self) -> str: ...
    @property
    def language(self) -> str: ...
    @property
    def qr_payload(self) -> str: ...
    @property
    def revoked_at(self) -> datetime | None: ...
    @property
    def revocation_reason(self) -> str | None: ...
    @property
    def replaced_by(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class CredentialFacts:
    """What the page shows that the stored credential itself says (never other columns): each field is the
    `CertificateView` field of the same name, which `certificate_view` fills from it."""

    name: str | None
    course: str | None
    description: str | None
    issued_at: datetime | None
    issuer_name: str | None
    issuer_id: str | None
    score_percent: int | None
    pass_percent: int | None
    criteria: str | None
    skills: tuple[str, ...]


def credential_facts(stored: Mapping[str, Any]) -> CredentialFacts:
    subject = _mapping(stored.get("credentialSubject"))
    achievement = _mapping(subject.get("achievement"))
    issuer = _mapping(stored.get("issuer"))
    try:
        issued_at: datetime | None = documents.parse_timestamp(str(stored["validFrom"]))
    except (KeyError, ValueError):
        issued_at = None
    items = stored.get("evidence")
    exams = [_mapping(item).get("exam") for item in items] if isinstance(items, list) else []
    evidence = next((_mapping(exam) for exam in exams if exam is not None), _mapping(None))
    return CredentialFacts(
        name=_identifier(stored, "name"),
        course=_string(achievement.get("name")),
        description=_string(achievement.get("description")),
        issued_at=issued_at,
        issuer_name=_string(issuer.get("name")),
        issuer_id=_string(issuer.get("id")),
        score_percent=_integer(evidence.get("scorePercent")),
        pass_percent=_integer(evidence.get("passPercent")),
        criteria=_string(_mapping(achievement.get("criteria")).get("narrative")),
        skills=tuple(tag for tag in _list(achievement.get("tag")) if isinstance(tag, str)),
    )


def certificate_view(
    row: StoredCertificate, facts: CredentialFacts, verification: Verification, issuer_of_site: Issuer
) -> CertificateView:
    url = issuer_of_site.certificate_url(row.id)
    revoked_at = aware(row.revoked_at) if row.revoked_at else None
    return CertificateView(
        id=row.id,
        url=url,
        qr_url=f"{url}#{row.qr_payload}",
        verification=verification,
        state=page_state(verification, revoked_at),
        failed_checks=tuple(check for check in verification.failed() if check.problem != "revoked"),
        language=row.language,
        key=verification.key,
        revoked_at=revoked_at,
        revocation_reason=row.revocation_reason,
        replaced_by=row.replaced_by,
        **{fact.name: getattr(facts, fact.name) for fact in fields(facts)},
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
