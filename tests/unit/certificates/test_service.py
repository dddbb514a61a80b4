"""CertificateService on SQLite and PostgreSQL: who may claim, one certificate per learner and course version,
name corrections, revocation in the status list, all-or-nothing issuing, key rotation, verifying stored bytes."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update

import app.models  # noqa: F401  (every table)
from app.certificates.credential import jwt_payload
from app.certificates.errors import (
    CertificateNotFoundError,
    CertificateRateLimitedError,
    InvalidNameError,
    NotEligibleError,
)
from app.certificates.keys import KeyRing, SigningKey
from app.certificates.models import Certificate, CertificateClaim, CertificateKey, StatusList
from app.certificates.service import CertificatePolicy, CertificateService
from app.certificates.signing import add_proof, decode_jws, sign_jws, verify_proof
from app.certificates.statuslist import LIST_SIZE
from app.db import Base, Database
from app.ratelimit import Limit
from tests.unit.certificates.helpers import BASE_URL, certificate_service, pass_exam, revoked_in_list
from tests.unit.quiz.helpers import T0, context, quiz_service, run

LEARNER = "a" * 32
OTHER = "b" * 32


def count(database: Database, table: type[Base]) -> int:
    with database.session() as session:
        return int(session.scalar(select(func.count()).select_from(table)) or 0)


def stored(database: Database, certificate_id: str) -> Certificate:
    with database.session() as session:
        row = session.get(Certificate, certificate_id)
        assert row is not None
        return row


def passed_service(database: Database, **options: Any) -> CertificateService:
    quiz = quiz_service(database)
    pass_exam(quiz, LEARNER)
    return certificate_service(database, quiz=quiz, **options)


def test_only_a_learner_who_passed_the_exam_may_claim(database: Database) -> None:
    service = certificate_service(database)
    with pytest.raises(NotEligibleError):
        run(service.claim(context(OTHER), "Ada Lovelace", None))
    with pytest.raises(NotEligibleError):
        run(service.claim_status(context(OTHER, returning=False)))
    assert count(database, Certificate) == count(database, StatusList) == 0


def test_claiming_twice_gives_the_same_certificate(database: Database) -> None:
    service = passed_service(database)
    first = run(service.claim(context(LEARNER), "  Ada   Lovelace ", "Ada@Example.org"))
    again = run(service.claim(context(LEARNER), "Ada Lovelace", "ada@example.org "))
    assert first.created
    assert (again.id, again.created) == (first.id, False)
    assert first.url == f"{BASE_URL}/c/{first.id}"
    assert count(database, Certificate) == count(database, CertificateClaim) == 1
    status = run(service.claim_status(context(LEARNER)))
    assert status.certificate is not None
    assert (status.certificate.id, status.certificate.name, status.certificate.email_hashed) == (
        first.id,
        "Ada Lovelace",
        True,
    )


def test_the_credential_is_an_open_badge_with_evidence_status_and_a_matching_jws(database: Database) -> None:
    service = passed_service(database)
    issued = run(service.claim(context(LEARNER, language="ko"), "김민준", "kim@example.org"))
    row = stored(database, issued.id)
    document = json.loads(row.credential)
    assert document["@context"] == [
        "https://www.w3.org/ns/credentials/v2",
        "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json",
    ]
    assert document["type"] == ["VerifiableCredential", "OpenBadgeCredential"]
    assert document["issuer"] == {
        "id": "did:web:course.example",
        "type": ["Profile"],
        "name": "Interconnects",
        "url": f"{BASE_URL}/issuer",
    }
    assert document["validFrom"] == "2026-12-01T09:00:00Z"
    subject = document["credentialSubject"]
    assert "id" not in subject
    name, email = subject["identifier"]
    assert name == {"type": "IdentityObject", "identityType": "name", "hashed": False, "identityHash": "김민준"}
    assert email["hashed"] is True
    assert email["identityHash"].startswith("sha256$")
    assert "kim@example.org" not in row.credential + row.jws
    achievement = subject["achievement"]
    assert {"id", "name", "description", "criteria"} <= set(achievement)
    assert achievement["inLanguage"] == "ko"
    status = document["credentialStatus"]
    assert status["type"] == "BitstringStatusListEntry"
    assert status["statusListCredential"] == f"{BASE_URL}/status/1"
    assert 0 <= int(status["statusListIndex"]) < LIST_SIZE
    (evidence,) = document["evidence"]
    attempt_questions = run(quiz_service(database).attempt(context(LEARNER), row.attempt_id or "")).questions
    assert evidence["contentVersion"] == service.course.version
    assert evidence["contentVersion"].startswith("sha256:")
    assert evidence["exam"]["seed"].isdigit()
    assert [item["id"] for item in evidence["exam"]["questions"]] == [drawn.id for drawn in attempt_questions]
    assert [item["parameters"] for item in evidence["exam"]["questions"]] == [
        dict(drawn.parameters) for drawn in attempt_questions
    ]
    proof = document["proof"]
    assert (proof["type"], proof["cryptosuite"], proof["proofPurpose"]) == (
        "DataIntegrityProof",
        "eddsa-jcs-2022",
        "assertionMethod",
    )
    assert proof["verificationMethod"] == service.issuer.method_id(service.keys.active.thumbprint)

    decoded = decode_jws(row.jws)
    assert decoded.header == {"alg": "EdDSA", "typ": "vc+jwt", "kid": service.issuer.jws_kid(row.key_id)}
    payload = decoded.payload
    assert payload is not None
    unsigned = {key: value for key, value in document.items() if key != "proof"}
    assert {key: value for key, value in payload.items() if key not in ("iss", "jti", "nbf")} == unsigned
    assert (payload["iss"], payload["jti"], payload["nbf"]) == (
        "did:web:course.example",
        issued.url,
        int(T0.timestamp()),
    )
    assert "sub" not in payload
    assert "exp" not in payload


def test_a_name_correction_reissues_and_revokes_the_old_certificate(database: Database) -> None:
    service = passed_service(database)
    first = run(service.claim(context(LEARNER), "Ada Lovelase", None))
    corrected = run(service.claim(context(LEARNER), "Ada Lovelace", None))
    assert corrected.created
    assert corrected.id != first.id
    old = stored(database, first.id)
    assert (old.revocation_reason, old.replaced_by) == ("superseded", corrected.id)
    view = run(service.certificate("192.0.2.9", first.id))
    assert (view.state, view.replaced_by, view.verification.status) == ("revoked", corrected.id, "revoked")
    assert run(service.certificate("192.0.2.9", corrected.id)).state == "valid"
    assert revoked_in_list(run(service.status_list(old.status_list)), old.status_index)
    assert not revoked_in_list(run(service.status_list(1)), stored(database, corrected.id).status_index)
    with database.session() as session:
        claim = session.get(CertificateClaim, (LEARNER, service.course.version))
        assert claim is not None
        assert claim.certificate_id == corrected.id
    adding_email = run(service.claim(context(LEARNER), "Ada Lovelace", "ada@example.org"))
    assert adding_email.created  # another identity on the credential: re-issued as well


def test_bad_names_and_addresses_are_refused_before_anything_is_stored(database: Database) -> None:
    service = passed_service(database)
    for name, email, code in (("Ada\u202e", None, "bidi"), ("", None, "empty"), ("Ada", "not-an-address", "email")):
        with pytest.raises(InvalidNameError) as refused:
            run(service.claim(context(LEARNER), name, email))
        assert refused.value.code == code
    assert count(database, Certificate) == 0


def test_a_refused_name_carries_the_claim_step_the_form_is_shown_again_with(database: Database) -> None:
    service = passed_service(database)
    issued = run(service.claim(context(LEARNER), "Ada Lovelace", None))
    with pytest.raises(InvalidNameError) as refused:
        run(service.claim(context(LEARNER), "Ada\u202e", None))
    assert refused.value.claim == run(service.claim_status(context(LEARNER)))
    assert refused.value.claim.certificate is not None
    assert refused.value.claim.certificate.id == issued.id
    with pytest.raises(NotEligibleError):  # a learner who may not claim is told that first
        run(service.claim(context(OTHER), "Ada\u202e", None))


def test_nothing_is_half_issued_when_issuing_fails_midway(database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    quiz = quiz_service(database)
    pass_exam(quiz, LEARNER)
    healthy = certificate_service(database, quiz=quiz)
    crashing = certificate_service(database, quiz=quiz, keys=healthy.keys)
    issue = crashing.issuing._issue

    def dies(*args: Any, **kwargs: Any) -> Certificate:
        """Dies after the certificate row, its signed bytes and its status index were written, before commit."""
        issue(*args, **kwargs)
        raise RuntimeError("the process died here")

    monkeypatch.setattr(crashing.issuing, "_issue", dies)
    with pytest.raises(RuntimeError, match="died"):
        run(crashing.claim(context(LEARNER), "Ada Lovelace", None))
    with pytest.raises(RuntimeError, match="died"):
        run(crashing.issue("Grace Hopper", None, "en"))
    for table in (Certificate, CertificateClaim, StatusList, CertificateKey):
        assert count(database, table) == 0, table.__tablename__
    issued = run(healthy.claim(context(LEARNER), "Ada Lovelace", None))
    with database.session() as session:
        status_list = session.get(StatusList, 1)
        assert status_list is not None
        assert status_list.allocated == 1
    assert run(healthy.certificate("192.0.2.9", issued.id)).state == "valid"


def test_revocation_shows_in_the_view_the_verifier_and_the_decoded_status_list(database: Database) -> None:
    service = certificate_service(database)
    issued = run(service.issue("Grace Hopper", None, "en"))
    row = stored(database, issued.id)
    assert not revoked_in_list(run(service.status_list(1)), row.status_index)
    revoked = run(service.revoke(issued.id.lower(), "Issued by mistake"))
    assert revoked.revoked_at is not None
    assert revoked_in_list(run(service.status_list(1)), row.status_index)
    view = run(service.certificate("192.0.2.9", issued.id))
    assert (view.state, view.revocation_reason) == ("revoked", "Issued by mistake")
    assert view.verification.signature_valid
    verdict = run(service.verify("192.0.2.9", json.loads(row.credential)))
    assert (verdict.valid, verdict.status) == (False, "revoked")
    assert [check.name for check in verdict.failed()] == ["status"]
    with pytest.raises(CertificateNotFoundError):
        run(service.revoke("0" * 26, "nothing there"))


def test_the_status_list_credential_is_signed_like_a_certificate(database: Database) -> None:
    service = certificate_service(database)
    run(service.issue("Grace Hopper", None, "en"))
    document = json.loads(run(service.status_list(1)))
    assert document["type"] == ["VerifiableCredential", "BitstringStatusListCredential"]
    assert document["credentialSubject"]["statusPurpose"] == "revocation"
    assert document["proof"]["cryptosuite"] == "eddsa-jcs-2022"
    assert verify_proof(document, lambda _method: service.keys.active.public.key).valid


def test_changed_stored_bytes_make_the_page_say_invalid(database: Database) -> None:
    service = certificate_service(database)
    issued = run(service.issue("Grace Hopper", None, "en"))
    row = stored(database, issued.id)
    with database.session() as session:
        session.execute(
            update(Certificate)
            .where(Certificate.id == issued.id)
            .values(credential=row.credential.replace("Grace Hopper", "Mallory"))
        )
        session.commit()
    view = run(service.certificate("192.0.2.9", issued.id))
    assert view.state == "invalid"
    assert view.name == "Mallory"  # what the bytes say, shown under the invalid banner
    assert "signature" in [check.name for check in view.failed_checks]


def test_unknown_keys_make_a_credential_invalid_not_an_error(database: Database) -> None:
    service = certificate_service(database)
    issued = run(service.issue("Grace Hopper", None, "en"))
    document = json.loads(stored(database, issued.id).credential)
    unsigned = {key: value for key, value in document.items() if key != "proof"}
    stranger = SigningKey.generate()  # never used by this issuer: not in its key file nor in its database
    forged = add_proof(
        unsigned, stranger.private, service.issuer.method_id(stranger.thumbprint), "2026-12-01T09:00:00Z"
    )
    verdict = run(service.verify("192.0.2.9", forged))
    assert not verdict.valid
    assert ("key", "unknown_key") in [(check.name, check.problem) for check in verdict.failed()]
    token = sign_jws(jwt_payload(unsigned), stranger.private, service.issuer.jws_kid(stranger.thumbprint))
    jws_verdict = run(service.verify("192.0.2.9", token))
    assert (jws_verdict.valid, jws_verdict.signature_valid) == (False, False)


def test_rotated_keys_sign_new_certificates_while_old_ones_keep_verifying(database: Database, tmp_path: Path) -> None:
    key_file = tmp_path / "keys.pem"
    ring = KeyRing.load_or_generate(key_file)
    service = certificate_service(database, keys=ring, key_file=key_file)
    old = run(service.issue("Grace Hopper", None, "en"))
    new_key = service.rotate_keys()
    assert len(KeyRing.load(key_file).keys) == 2
    assert key_file.stat().st_mode & 0o777 == 0o600
    new = run(service.issue("Ada Lovelace", None, "en"))
    assert stored(database, new.id).key_id == new_key.thumbprint != stored(database, old.id).key_id
    # A host that has only the new key in its file still verifies the old certificate (from the database).
    only_new = certificate_service(database, keys=KeyRing((new_key,)))
    for certificate_id in (old.id, new.id):
        assert run(only_new.certificate("192.0.2.9", certificate_id)).state == "valid"
        assert run(only_new.verify("192.0.2.9", stored(database, certificate_id).jws)).valid
    did = run(only_new.did_document())
    methods = {method["id"]: method["type"] for method in did["verificationMethod"]}
    for thumbprint in (ring.active.thumbprint, new_key.thumbprint):
        assert methods[service.issuer.method_id(thumbprint)] == "Multikey"
        assert methods[service.issuer.jws_kid(thumbprint)] == "JsonWebKey"
    assert len(run(only_new.jwks())["keys"]) == 2


def test_the_exam_replay_regenerates_the_questions_without_answers(database: Database) -> None:
    service = passed_service(database)
    issued = run(service.claim(context(LEARNER), "Ada Lovelace", None))
    replay = run(service.exam_replay(issued.id.lower(), "en"))
    attempt = run(quiz_service(database).attempt(context(LEARNER), stored(database, issued.id).attempt_id or ""))
    assert not replay.content_changed
    assert [question.prompt for question in replay.questions] == [drawn.prompt("en") for drawn in attempt.questions]
    texts = " ".join(question.prompt + " ".join(question.options) for question in replay.questions)
    for drawn in attempt.questions:  # 80 characters: an explanation may open with its own prompt's words
        assert drawn.question.explanation.en.split("{")[0][:80] not in texts
    operator = run(service.issue("Grace Hopper", None, "en"))
    assert run(service.exam_replay(operator.id, "en")).questions == ()


def test_a_recheck_verifies_the_stored_bytes_and_declines_what_the_full_lookup_must_answer(database: Database) -> None:
    moments = [T0]
    tight = CertificatePolicy(miss_per_client=Limit(2, 600), verify_per_client=Limit(1000, 60))
    service = certificate_service(database, clock=lambda: moments[-1], policy=tight)
    issued = run(service.issue("Grace Hopper", None, "en"))
    full = run(service.certificate("192.0.2.9", issued.id))
    again = run(service.recheck(issued.id.lower()))
    assert again == full
    assert again.state == "valid"
    assert [check.name for check in again.verification.checks if check.passed] == [
        check.name for check in full.verification.checks
    ]
    assert run(service.recheck("0" * 26)) is None  # unknown: the full lookup answers (and counts) it
    assert run(service.recheck("not an id")) is None

    run(service.revoke(issued.id, "Issued by mistake"))
    revoked = run(service.recheck(issued.id))
    assert revoked is not None
    assert (revoked.state, revoked.verification.status) == ("revoked", "revoked")
    with database.session() as session:
        row = session.get(Certificate, issued.id)
        assert row is not None
        changed = row.credential.replace("Grace Hopper", "Grace Hoppers")
        session.execute(update(Certificate).where(Certificate.id == issued.id).values(credential=changed))
        session.commit()
    tampered = run(service.recheck(issued.id))
    assert tampered is not None
    assert "signature" in [check.name for check in tampered.verification.failed()]

    for _ in range(2):  # an address that spent its misses ...
        with pytest.raises(CertificateNotFoundError):
            run(service.certificate("198.51.100.7", "0" * 26))
    with pytest.raises(CertificateRateLimitedError):  # ... is refused further unknown ids ...
        run(service.certificate("198.51.100.7", "1" * 26))
    assert run(service.recheck(issued.id)) is not None  # ... and still sees real ones
    assert run(service.certificate("198.51.100.7", issued.id)).state == "invalid"  # tampered above
    moments.append(T0 + timedelta(minutes=11))  # the window has passed
    with pytest.raises(CertificateNotFoundError):
        run(service.certificate("198.51.100.7", "1" * 26))


def test_a_page_prepared_from_remembered_bytes_still_checks_key_signature_clock_and_status(database: Database) -> None:
    """The verification page keeps what a certificate's stored bytes alone decide (parsed, canonicalised and
    hashed); the key, the Ed25519 signature, the dates and the status bit are checked on every view."""
    moments = [T0]
    service = certificate_service(database, clock=lambda: moments[-1])
    issued = run(service.issue("Grace Hopper", None, "en"))
    first = run(service.recheck(issued.id))
    assert first is not None
    assert first.state == "valid"
    for _ in range(3):
        assert run(service.recheck(issued.id)) == first
    assert len(service.lookup._prepared) == 1  # prepared once, from the same bytes
    assert run(certificate_service(database, keys=service.keys).certificate("192.0.2.9", issued.id)) == first

    moments.append(T0 - timedelta(days=1))  # the clock before validFrom
    early = run(service.recheck(issued.id))
    assert early is not None
    assert ("validity_period", "not_yet_valid") in [(c.name, c.problem) for c in early.verification.failed()]
    moments.append(T0)

    run(service.revoke(issued.id, "Issued by mistake"))
    revoked = run(service.recheck(issued.id))
    assert revoked is not None
    assert revoked.state == "revoked"

    # The same thumbprint now resolves to another public key: the remembered bytes no longer verify.
    thumbprint = stored(database, issued.id).key_id
    other = SigningKey.generate()
    service.keys = KeyRing((other,))
    with database.session() as session:
        session.execute(
            update(CertificateKey).where(CertificateKey.id == thumbprint).values(public_key=other.public.multibase)
        )
        session.commit()
    forged_key = run(service.recheck(issued.id))
    assert forged_key is not None
    assert forged_key.state == "invalid"
    assert {"signature", "jwt_signature"} <= {check.name for check in forged_key.verification.failed()}
    assert len(service.lookup._prepared) == 1


@pytest.mark.parametrize(
    ("language", "phrases"),
    [
        (
            "en",
            (
                "on 2026-12-01",
                "10 questions drawn from every chapter",
                "at least 4 of them",
                "open book",
                "40 minutes",
                "80 %",
            ),
        ),
        ("ko", ("2026-12-01에", "10문항", "4문항 이상", "오픈북", "40분", "80 %")),
    ],
)
def test_the_criteria_say_what_the_exam_was(database: Database, language: str, phrases: tuple[str, ...]) -> None:
    service = passed_service(database)
    issued = run(service.claim(context(LEARNER, language=language), "Ada Lovelace", None))
    narrative = json.loads(stored(database, issued.id).credential)["credentialSubject"]["achievement"]["criteria"][
        "narrative"
    ]
    for phrase in phrases:
        assert phrase in narrative, narrative
    view = run(service.certificate("192.0.2.9", issued.id))
    assert view.criteria == narrative  # the page shows what the signed credential says
