"""Checking a credential: the same steps for the verification page (the stored bytes, on every request) and for
POST /api/v1/credentials/verify (whatever a client sends). Pure: the caller hands in how to find a key and a
status bit.

Each step is a named check; a credential is valid when every check passes. What a check cannot establish is a
failed check, never an exception: an unknown key, a foreign issuer or a missing status entry make a credential
invalid, and the result names the step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from app.certificates.credential import Issuer, jwt_payload, parse_timestamp
from app.certificates.keys import PublicKey
from app.certificates.signing import ProofCheck, VerifiedSignatures, decode_jws, verify_jws, verify_proof

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


class Verifier:
    def __init__(
        self, issuer: Issuer, keys: KeyLookup, revoked: StatusLookup, jws_verified: VerifiedSignatures | None = None
    ) -> None:
        self.issuer = issuer
        self.keys = keys
        self.revoked = revoked
        self.jws_verified = jws_verified
        self._resolved: dict[str, PublicKey | None] = {}

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

    def document(self, document: Mapping[str, Any], now: datetime) -> Verification:
        """A credential with an embedded eddsa-jcs-2022 proof."""
        checks = [self._format(document)]
        checks.append(self._issuer(document.get("issuer")))
        proof = verify_proof(document, self._resolve)
        checks += self._signature_checks(proof)
        key = self._key(proof.verification_method) if proof.verification_method else None
        dates, status = self._dates(document, now), self._status(document)
        return Verification((*checks, dates, status[0]), status[1], document, key)

    def jws(self, token: str, now: datetime) -> Verification:
        """A compact JWS whose payload is the credential (OB 3.0 §8.2)."""
        decoded = decode_jws(token)
        if decoded.problem is not None or decoded.payload is None:
            return Verification((Check(FORMAT, False, "jws_format"),), None, None, None)
        checked = verify_jws(token, self._resolve, self.jws_verified)
        payload = decoded.payload
        checks = [self._format(payload)]
        if checked.problem in ("algorithm", "type"):
            checks[0] = Check(FORMAT, False, f"jws_{checked.problem}")
        checks.append(self._issuer(payload.get("issuer")))
        kid = checked.kid
        key = self._key(kid) if kid is not None else None
        if key is None:
            checks += [Check(KEY, False, "unknown_key"), Check(SIGNATURE, False, "not_checked")]
        else:
            checks += [Check(KEY, True), Check(SIGNATURE, checked.valid, None if checked.valid else "signature")]
        checks.append(self._claims(payload))
        dates, status = self._dates(payload, now), self._status(payload)
        return Verification((*checks, dates, status[0]), status[1], payload, key)

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

    @staticmethod
    def _dates(document: Mapping[str, Any], now: datetime) -> Check:
        try:
            valid_from = parse_timestamp(str(document["validFrom"]))
            valid_until = parse_timestamp(str(document["validUntil"])) if "validUntil" in document else None
        except (KeyError, ValueError):
            return Check(DATES, False, "bad_dates")
        if valid_from > now:
            return Check(DATES, False, "not_yet_valid")
        if valid_until is not None and valid_until <= now:
            return Check(DATES, False, "expired")
        return Check(DATES, True)

    def _status(self, document: Mapping[str, Any]) -> tuple[Check, Status | None]:
        entry = document.get("credentialStatus")
        if not isinstance(entry, Mapping) or entry.get("type") != "BitstringStatusListEntry":
            return Check(STATUS, False, "no_status"), None
        prefix = self.issuer.status_list_url(0)[:-1]
        list_url, index_text = entry.get("statusListCredential"), entry.get("statusListIndex")
        if not isinstance(list_url, str) or not list_url.startswith(prefix) or not isinstance(index_text, str):
            return Check(STATUS, False, "no_status"), None
        number_text = list_url[len(prefix) :]
        if not (number_text.isdigit() and index_text.isdigit()) or len(number_text) > 9 or len(index_text) > 9:
            return Check(STATUS, False, "no_status"), None
        revoked = self.revoked(int(number_text), int(index_text))
        if revoked is None:
            return Check(STATUS, False, "no_status"), None
        if revoked:
            return Check(STATUS, False, "revoked"), "revoked"
        return Check(STATUS, True), "active"


_JWT_CLAIMS = ("iss", "jti", "nbf", "sub", "exp")
