"""The certificate feature's services, one per job, built together from what they need:

- `IssuingService` (app.certificates.issuing): the claim step, the operator's issue and revoke, the listing;
- `LookupService` (app.certificates.lookup): the one read path and verifying, for the page and the API;
- `ArtifactService` (app.certificates.artifacts): the JSON, the JWT, the PDF and the preview image;
- `PublishingService` (app.certificates.publishing): the issuer's keys, DID document and status lists.

`CertificateService` holds the four and is what the application state, the routes and the CLI reach; its
methods hand each call to the service whose job it is. Each service owns its transactions (through
`Database.run`, which picks the event loop or a thread) and raises domain errors (`app.certificates.errors`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.certificates.artifacts import ArtifactService
from app.certificates.course import Course, content_version
from app.certificates.credential import Issuer
from app.certificates.issuing import IssuingService
from app.certificates.keys import KeyRing
from app.certificates.lookup import LookupService
from app.certificates.messages import CertificateText
from app.certificates.pdf import Fonts
from app.certificates.policy import CertificatePolicy
from app.certificates.publishing import PublishingService
from app.db import Database
from app.quiz.service import QuizService

__all__ = ["CertificatePolicy", "CertificateService", "Course", "content_version"]


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
        self.issuer = issuer
        self.translations = translations
        self.course = course
        self.quiz = quiz
        self.key_file = key_file
        policy = policy or CertificatePolicy()
        self.publishing = PublishingService(database, keys, issuer, clock, key_file)
        self.lookup = LookupService(database, self.publishing, issuer, clock, policy)
        self.issuing = IssuingService(
            database, quiz, self.publishing, issuer, course, self.text, translations, clock, policy
        )
        self.artifacts = ArtifactService(self.lookup, issuer, self.text, fonts if fonts is not None else Fonts.find())
        # The bound methods, so that a call costs one attribute lookup: these are the routes' and the CLI's.
        self.claim_status = self.issuing.claim_status
        self.current = self.issuing.current
        self.claim = self.issuing.claim
        self.preview = self.issuing.preview
        self.claim_preview = self.issuing.claim_preview
        self.issue = self.issuing.issue
        self.revoke = self.issuing.revoke
        self.listing = self.issuing.listing
        self.exam_replay = self.issuing.exam_replay
        self.certificate = self.lookup.certificate
        self.recheck = self.lookup.recheck
        self.check_fragment = self.lookup.check_fragment
        self.verify = self.lookup.verify
        self.artifact = self.artifacts.artifact
        self.badge = self.artifacts.badge
        self.status_list = self.publishing.status_list
        self.public_keys = self.publishing.public_keys
        self.did_document = self.publishing.did_document
        self.jwks = self.publishing.jwks
        self.profile = self.publishing.profile
        self.rotate_keys = self.publishing.rotate_keys

    def text(self, language: str) -> CertificateText:
        return CertificateText(self.translations[language], language)

    @property
    def policy(self) -> CertificatePolicy:
        return self.lookup.policy

    @policy.setter
    def policy(self, policy: CertificatePolicy) -> None:
        self.lookup.policy = policy
        self.issuing.policy = policy

    @property
    def keys(self) -> KeyRing:
        return self.publishing.keys

    @keys.setter
    def keys(self, keys: KeyRing) -> None:
        self.publishing.keys = keys
