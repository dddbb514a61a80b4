"""Looking certificates up and verifying them: the verification page (every request), the QR check, the
artifacts' read, and POST /api/v1/credentials/verify.

One read path: every lookup of an id goes through `_lookup`, which only reads when the id is known. Only a miss
writes, counting against the address's allowance of misses (app.ratelimit's window, read by `ratelimit.refused`
on the read path and counted by `check_and_count` on a miss); once that is spent, further unknown ids get 429
while known ones keep answering.

The verdict is decided for every request from the stored bytes, the issuer's keys, the clock and the status bit.
What the stored bytes alone decide (parsing, canonical hashing, the format and issuer checks) is remembered per
exact bytes, and each Ed25519 check per exact (key, signature, message), since both are pure functions of their
inputs; the key lookup, the dates and the status bit are read per request, so a revocation from any process
shows on the next view.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Connection, bindparam, func, select
from sqlalchemy.orm import Session

from app.certificates import credential as documents
from app.certificates.credential import Issuer
from app.certificates.errors import CertificateNotFoundError, CertificateRateLimitedError
from app.certificates.ids import normalise
from app.certificates.models import Certificate, StatusList
from app.certificates.policy import CertificatePolicy
from app.certificates.publishing import PublishingService
from app.certificates.qr import QrCheck, verify_fragment
from app.certificates.readmodels import (
    CertificateView,
    CredentialFacts,
    StoredCertificate,
    certificate_view,
    credential_facts,
)
from app.certificates.signing import VerifiedSignatures
from app.certificates.statuslist import is_set
from app.certificates.verification import Check, Prepared, Verification, Verifier
from app.db import Database
from app.ratelimit import check_and_count, refused
from app.remembered import Remembered

T = TypeVar("T")
PREPARED_REMEMBERED = 512  # stored certificates whose parsed and hashed bytes are kept (a few KiB each)
SIGNATURES_REMEMBERED = 2048  # two per certificate shown: the embedded proof and the JWS

_STATUS_BYTE = select(
    func.length(StatusList.bits).label("length"),
    func.substr(StatusList.bits, bindparam("byte"), 1).label("byte"),
).where(StatusList.number == bindparam("number"))
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


@dataclass(frozen=True, slots=True)
class StatusByte:
    """A byte of a status list read ahead: (list number, 1-based byte) -> (the list's length, the byte)."""

    place: tuple[int, int]
    found: tuple[int, bytes] | None


@dataclass(frozen=True, slots=True)
class _PreparedCertificate:
    """A stored certificate's two encodings with every check their bytes alone decide already done (see
    `Verifier.checked` for what is checked on every view); `document` is None when the stored credential is not
    a JSON object."""

    document: Prepared | None
    token: Prepared
    same_copy: bool  # the JWS's payload is the embedded-proof credential without its proof
    facts: CredentialFacts


@dataclass(eq=False)
class LookupService:
    database: Database
    publishing: PublishingService
    issuer: Issuer
    clock: Callable[[], datetime]
    policy: CertificatePolicy
    _prepared: Remembered[tuple[str, str], _PreparedCertificate] = field(
        init=False, default_factory=lambda: Remembered(PREPARED_REMEMBERED)
    )
    _verified: VerifiedSignatures = field(init=False, default_factory=lambda: VerifiedSignatures(SIGNATURES_REMEMBERED))

    async def certificate(self, client: str, raw_id: str) -> CertificateView:
        """The certificate, verified from its stored bytes now."""
        return await self._lookup(client, raw_id, lambda session, row, now: self._view(session.connection(), row, now))

    async def stored(self, client: str, raw_id: str) -> tuple[Certificate, CertificateView]:
        """The stored row and the certificate verified now: what the artifacts are made of."""

        def read(session: Session, row: Certificate, now: datetime) -> tuple[Certificate, CertificateView]:
            return row, self._view(session.connection(), row, now)

        return await self._lookup(client, raw_id, read)

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
            check = verify_fragment(
                fragment, lambda thumbprint: self.publishing.public_key(session.connection(), thumbprint)
            )
            summary = check.summary
            matches = summary is not None and (
                summary.certificate_id == row.id
                and summary.name == view.name
                and summary.date == (view.issued_at.date().isoformat() if view.issued_at else None)
            )
            return view, check, matches

        return await self._lookup(client, raw_id, read)

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

    # --- the one read path ---------------------------------------------------------------------------------

    async def _lookup(self, client: str, raw_id: str, read: Callable[[Session, Certificate, datetime], T]) -> T:
        """`read` of the certificate an id (as typed) names.

        A lookup of a known id only reads: the page everyone is sent to must not queue for SQLite's write lock (a
        write per view cost nine tenths of the page's throughput). Only a miss writes, counting against the
        address's allowance of misses, and once that is spent further unknown ids get 429 while known ones keep
        answering: a page with thirty cross-site <img> tags, or a campus behind one NAT, must not lock everyone
        there out of real certificates. That a hit then answers differently from a miss tells nothing: ids are
        128 random bits, so there is no hit to find by guessing."""
        certificate_id = normalise(raw_id)
        key = f"cert:miss:c:{client}"

        def reading(session: Session) -> tuple[T] | None:
            now = self.clock()
            row = session.get(Certificate, certificate_id) if certificate_id is not None else None
            if row is not None:
                return (read(session, row, now),)
            refusal = refused(session, key, self.policy.miss_per_client, now)
            if refusal is not None:
                raise CertificateRateLimitedError(refusal.retry_after_s)
            return None

        found = await self.database.run(reading)
        if found is not None:
            return found[0]

        def miss(session: Session) -> int | None:
            refusal = check_and_count(session, [(key, self.policy.miss_per_client)], self.clock())
            return refusal.retry_after_s if refusal is not None else None

        wait = await self.database.run(miss, write=True)
        if wait is not None:
            raise CertificateRateLimitedError(wait)
        raise CertificateNotFoundError(raw_id)

    # --- verifying the stored bytes ------------------------------------------------------------------------

    def _verifier(
        self,
        connection: Connection,
        prefetched: StatusByte | None = None,
        verified: VerifiedSignatures | None = None,
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

        return Verifier(
            self.issuer, lambda thumbprint: self.publishing.public_key(connection, thumbprint), revoked, verified
        )

    def _view(
        self, connection: Connection, row: StoredCertificate, now: datetime, prefetched: StatusByte | None = None
    ) -> CertificateView:
        verifier = self._verifier(connection, prefetched, self._verified)
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
