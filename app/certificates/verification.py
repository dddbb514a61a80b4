"""Checking a credential: the same steps for the verification page (the stored bytes, on every request) and for
POST /api/v1/credentials/verify (whatever a client sends). Pure: the caller hands in how to find a key and a
status bit.

Each step is a named check; a credential is valid when every check passes. What a check cannot establish is a
failed check, never an exception: an unknown key, a foreign issuer or a missing status entry make a credential
invalid, and the result names the step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from app.certificates.credential import Issuer, jwt_payload, parse_timestamp
from app.certificates.encoding import DuplicateNameError, strict_json
from app.certificates.keys import PublicKey
from app.certificates.signing import (
    PreparedJws,
    PreparedProof,
    ProofCheck,
    VerifiedSignatures,
    check_jws,
    check_proof,
    prepare_jws,
    prepare_proof,
)

# The checks, in the order they are reported.
FORMAT = "format"
ISSUER = "issuer"
KEY = "key"
SIGNATURE = "signature"
CLAIMS = "jwt_claims"
DATES = "validity_period"
STATUS = "status"

CREDENTIAL_TYPES = ("VerifiableCredential", "OpenBadgeCredential")
Status = Literal["active", "revoked"]
KeyLookup = Callable[[str], PublicKey | None]  # thumbprint -> key
StatusLookup = Callable[[int, int], bool | None]  # (list number, index) -> revoked, None when there is no such list


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    passed: bool
    problem: str | None = None  # a code that app.certificates.messages words for people


@dataclass(frozen=True, slots=True)
class Verification:
    checks: tuple[Check, ...]
    status: Status | None  # None when the credential names no status entry of this issuer
    credential: Mapping[str, Any] | None  # the credential that was checked (for a JWS: its payload)
    key: PublicKey | None

    @property
    def valid(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def signature_valid(self) -> bool:
        return all(check.passed for check in self.checks if check.name in (FORMAT, KEY, SIGNATURE))

    def failed(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if not check.passed)


Period = tuple[datetime, datetime | None]  # validFrom, validUntil


@dataclass(frozen=True, slots=True)
class Prepared:
    """A credential (or a JWS's payload) with every check done that its bytes alone decide, for this issuer.
    What a check needs besides the bytes (the key, the clock, the status list) is done by `Verifier.checked`
    each time, so a prepared credential can be checked again and again: the verification page keeps the
    prepared form of each stored certificate it has shown, and reads the key, the clock and the status bit on
    every request (the Ed25519 check itself is remembered per exact key, signature and message; see
    `VerifiedSignatures`).
    `unreadable` is a JWS whose parts could not be decoded at all, for the reason `problem` names."""

    credential: Mapping[str, Any] | None
    checks: tuple[Check, ...] = ()  # format and issuer, and for a JWS the registered claims
    proof: PreparedProof | PreparedJws | None = None
    period: Period | None = None  # None: missing or malformed dates
    status_entry: tuple[int, int] | None = None  # (list number, index); None: no entry of this issuer
    unreadable: bool = False
    problem: str = "jws_format"


@dataclass(eq=False)
class Verifier:
    issuer: Issuer
    keys: KeyLookup
    revoked: StatusLookup
    verified: VerifiedSignatures | None = None
    _resolved: dict[str, PublicKey | None] = field(init=False, default_factory=dict)

    def _key(self, method: str) -> PublicKey | None:
        thumbprint = self.issuer.thumbprint_of(method)
        if thumbprint is None:
            return None
        if thumbprint not in self._resolved:
            self._resolved[thumbprint] = self.keys(thumbprint)
        return self._resolved[thumbprint]

    def _resolve(self, method: str) -> Any:
        key = self._key(method)
        return key.key if key is not None else None

    def submitted(self, raw: str | bytes, now: datetime) -> Verification:
        """What a client sends, as sent: a credential with its proof, or {"jwt": "<compact JWS>"}. Parsed here,
        strictly, because a parser that keeps the last of two equal names would verify what another consumer
        reads differently."""
        try:
            value = strict_json(raw)
        except DuplicateNameError:
            return _unreadable("duplicate_names")
        except (UnicodeDecodeError, ValueError, RecursionError):
            return _unreadable("not_json")
        if not isinstance(value, dict):
            return _unreadable("not_open_badge")
        token = value.get("jwt")
        if set(value) == {"jwt"} and isinstance(token, str):
            return self.jws(token, now)
        return self.document(value, now)

    def document(self, document: Mapping[str, Any], now: datetime) -> Verification:
        """A credential with an embedded eddsa-jcs-2022 proof."""
        return self.checked(self.prepare_document(document), now)

    def jws(self, token: str, now: datetime) -> Verification:
        """A compact JWS whose payload is the credential (OB 3.0 §8.2)."""
        return self.checked(self.prepare_jws(token), now)

    def prepare_document(self, document: Mapping[str, Any]) -> Prepared:
        checks = (self._format(document), self._issuer(document.get("issuer")))
        return Prepared(document, checks, prepare_proof(document), _period(document), self._status_entry(document))

    def prepare_jws(self, token: str) -> Prepared:
        prepared = prepare_jws(token)
        payload = prepared.decoded.payload
        if prepared.decoded.problem is not None or payload is None:
            return Prepared(None, unreadable=True, problem=prepared.decoded.problem or "jws_format")
        form = self._format(payload)
        if prepared.early in ("algorithm", "type"):
            form = Check(FORMAT, False, f"jws_{prepared.early}")
        checks = (form, self._issuer(payload.get("issuer")), self._claims(payload))
        return Prepared(payload, checks, prepared, _period(payload), self._status_entry(payload))

    def checked(self, prepared: Prepared, now: datetime) -> Verification:
        """The checks that need more than the bytes: the key, the signature, the dates and the status."""
        if prepared.unreadable:
            return _unreadable(prepared.problem)
        shape, claims = prepared.checks[:2], prepared.checks[2:]
        signed = prepared.proof
        key: PublicKey | None
        if isinstance(signed, PreparedJws):
            checked = check_jws(signed, self._resolve, self.verified)
            kid = checked.kid
            key = self._key(kid) if kid is not None else None
            if key is None:
                signature = [Check(KEY, False, "unknown_key"), Check(SIGNATURE, False, "not_checked")]
            else:
                signature = [Check(KEY, True), Check(SIGNATURE, checked.valid, None if checked.valid else "signature")]
        else:
            assert signed is not None
            proof = check_proof(signed, self._resolve, self.verified)
            signature = self._signature_checks(proof)
            key = self._key(proof.verification_method) if proof.verification_method else None
        status, state = self._status(prepared.status_entry)
        checks = (*shape, *signature, *claims, _dates(prepared.period, now), status)
        return Verification(checks, state, prepared.credential, key)

    # --- the checks ---------------------------------------------------------------------------------------

    def _format(self, document: Mapping[str, Any]) -> Check:
        types = document.get("type")
        if not isinstance(types, list) or not all(name in types for name in CREDENTIAL_TYPES):
            return Check(FORMAT, False, "not_open_badge")
        if not isinstance(document.get("credentialSubject"), Mapping):
            return Check(FORMAT, False, "no_subject")
        return Check(FORMAT, True)

    def _issuer(self, issuer: Any) -> Check:
        issuer_id = issuer.get("id") if isinstance(issuer, Mapping) else issuer
        return Check(ISSUER, True) if issuer_id == self.issuer.did else Check(ISSUER, False, "foreign_issuer")

    @staticmethod
    def _signature_checks(proof: ProofCheck) -> list[Check]:
        if proof.problem in ("no_proof", "proof_format", "cryptosuite", "purpose"):
            return [Check(KEY, False, "not_checked"), Check(SIGNATURE, False, proof.problem)]
        if proof.problem == "unknown_key":
            return [Check(KEY, False, "unknown_key"), Check(SIGNATURE, False, "not_checked")]
        return [Check(KEY, True), Check(SIGNATURE, proof.valid, proof.problem)]

    def _claims(self, payload: Mapping[str, Any]) -> Check:
        try:
            expected = jwt_payload({name: value for name, value in payload.items() if name not in _JWT_CLAIMS})
        except (KeyError, TypeError, ValueError, AttributeError):
            return Check(CLAIMS, False, "claims_mismatch")
        for claim in _JWT_CLAIMS:
            if payload.get(claim) != expected.get(claim):
                return Check(CLAIMS, False, "claims_mismatch")
        return Check(CLAIMS, True)

    def _status_entry(self, document: Mapping[str, Any]) -> tuple[int, int] | None:
        entry = document.get("credentialStatus")
        if not isinstance(entry, Mapping) or entry.get("type") != "BitstringStatusListEntry":
            return None
        prefix = self.issuer.status_list_url(0)[:-1]
        list_url, index_text = entry.get("statusListCredential"), entry.get("statusListIndex")
        if not isinstance(list_url, str) or not list_url.startswith(prefix) or not isinstance(index_text, str):
            return None
        number_text = list_url[len(prefix) :]
        if not all(text.isascii() and text.isdigit() and len(text) <= 9 for text in (number_text, index_text)):
            return None  # "²" is a digit to str.isdigit, and int() refuses it
        return int(number_text), int(index_text)

    def _status(self, entry: tuple[int, int] | None) -> tuple[Check, Status | None]:
        revoked = self.revoked(*entry) if entry is not None else None
        if revoked is None:
            return Check(STATUS, False, "no_status"), None
        if revoked:
            return Check(STATUS, False, "revoked"), "revoked"
        return Check(STATUS, True), "active"


def _unreadable(problem: str) -> Verification:
    return Verification((Check(FORMAT, False, problem),), None, None, None)


def _period(document: Mapping[str, Any]) -> Period | None:
    try:
        valid_from = parse_timestamp(str(document["validFrom"]))
        valid_until = parse_timestamp(str(document["validUntil"])) if "validUntil" in document else None
    except (KeyError, ValueError):
        return None
    return valid_from, valid_until


def _dates(period: Period | None, now: datetime) -> Check:
    if period is None:
        return Check(DATES, False, "bad_dates")
    valid_from, valid_until = period
    if valid_from > now:
        return Check(DATES, False, "not_yet_valid")
    if valid_until is not None and valid_until <= now:
        return Check(DATES, False, "expired")
    return Check(DATES, True)


_JWT_CLAIMS = ("iss", "jti", "nbf", "sub", "exp")
