"""Shared by the certificate tests: a certificate service on a test database, learners who passed the exam (their
answers computed from the bank, as only tests may), the W3C vectors, and reading the documents back. A helper
module, not a test module."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from app.certificates.credential import Issuer
from app.certificates.keys import KeyRing, SigningKey
from app.certificates.service import CertificatePolicy, CertificateService, Course, content_version
from app.certificates.statuslist import decode_encoded_list, is_set
from app.content import load_course
from app.db import Database
from app.quiz.readmodels import AttemptView
from app.quiz.service import QuizService
from app.ratelimit import Limit
from app.web.i18n import load_translations
from tests.unit.quiz.helpers import CONTENT_DIR, T0, context, quiz_service, right_submission, run

VECTORS = Path(__file__).resolve().parents[2] / "vectors"
BASE_URL = "https://course.example"
UNLIMITED = Limit(1_000_000, 1)
GENEROUS = CertificatePolicy(UNLIMITED, UNLIMITED, UNLIMITED)


@cache
def translations() -> dict[str, Any]:
    return dict(load_translations())


@cache
def course() -> Course:
    loaded = load_course(CONTENT_DIR)
    return Course(loaded.titles, loaded.descriptions, content_version(CONTENT_DIR))


def issuer() -> Issuer:
    return Issuer(BASE_URL, "Interconnects")


def certificate_service(
    database: Database,
    *,
    quiz: QuizService | None = None,
    keys: KeyRing | None = None,
    clock: Callable[[], datetime] = lambda: T0,
    policy: CertificatePolicy = GENEROUS,
    key_file: Path | None = None,
) -> CertificateService:
    return CertificateService(
        database,
        quiz or quiz_service(database),
        keys or KeyRing((SigningKey.generate(),)),
        clock,
        issuer=issuer(),
        course=course(),
        translations=translations(),
        policy=policy,
        key_file=key_file,
    )


def pass_exam(quiz: QuizService, learner: str, at: datetime = T0) -> AttemptView:
    """The final exam, every answer right."""
    attempt = run(quiz.start(context(learner, at), quiz.exam()))
    for drawn in attempt.questions:
        run(quiz.answer(context(learner, at), attempt.id, drawn.id, right_submission(drawn)))
    done = run(quiz.finish(context(learner, at), attempt.id))
    assert done.passed
    return done


def revoked_in_list(status_list: bytes | str, index: int) -> bool:
    """Whether bit `index` is set in a served BitstringStatusListCredential."""
    document = json.loads(status_list)
    return is_set(decode_encoded_list(document["credentialSubject"]["encodedList"]), index)


def vector(name: str) -> str:
    return (VECTORS / "eddsa-jcs-2022" / name).read_text("utf-8")
