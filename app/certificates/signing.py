"""Signatures over credentials: the W3C `eddsa-jcs-2022` Data Integrity cryptosuite and compact JWS (EdDSA).

Pure functions over JSON values and Ed25519 keys (the `cryptography` package); nothing here knows the database.

eddsa-jcs-2022 (W3C "Data Integrity EdDSA Cryptosuites v1.0", §3.3): the proof options (the proof without its
`proofValue`, carrying the document's `@context`) and the document without its proof are each canonicalised
with RFC 8785 (JCS) and hashed with SHA-256; the Ed25519 signature is over proofHash || documentHash, and the
proofValue is that signature in multibase base58btc. JCS rather than RDF canonicalisation means no JSON-LD
context is ever fetched to verify: the bytes decide, which is what lets `openssl` and a dozen lines of Python
check a certificate too.

The JWS is RFC 7515 compact serialisation: base64url(header) "." base64url(payload) "." base64url(signature),
the signature over the ASCII of the first two parts.

Verifiers take a `KeyResolver`: a verification-method id (or JWS `kid`) -> public key, or None when the id is
not a key of this issuer. An unknown key makes a credential invalid; it is never an error.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from app.certificates.encoding import (
    DuplicateNameError,
    EncodingError,
    b64url_decode,
    b64url_encode,
    multibase_base58,
    multibase_decode,
    strict_json,
)
from app.remembered import Remembered

CRYPTOSUITE = "eddsa-jcs-2022"
PROOF_TYPE = "DataIntegrityProof"
JWS_ALGORITHM = "EdDSA"
JWS_TYPE = "vc+jwt"
SIGNATURE_BYTES = 64

KeyResolver = Callable[[str], Ed25519PublicKey | None]


class CanonicalizationError(ValueError):
    """The value cannot be canonicalised with JCS (a float that is not finite, an integer beyond 2^53...)."""


_canonical_forms: Remembered[str, bytes] = Remembered(1024)


def canonical(value: Any) -> bytes:
    """RFC 8785 canonical JSON: the bytes that are hashed and signed.

    Remembered for the last values seen: the verification page canonicalises the same stored credential on
    every request, and RFC 8785 in Python costs about as much as the Ed25519 check itself. The key is the value's
    repr, which tells apart everything canonicalisation does (1 from "1" as a key, True from 1) and only errs
    towards a miss (the order of keys); a value that cannot be canonicalised is never remembered."""
    key = repr(value)
    remembered = _canonical_forms.get(key)
    if remembered is not None:
        return remembered
    try:
        form = rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, TypeError) as error:
        raise CanonicalizationError(str(error)) from error
    _canonical_forms.put(key, form)
    return form


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def hash_data(unsecured: Mapping[str, Any], proof_config: Mapping[str, Any]) -> bytes:
    """What eddsa-jcs-2022 signs: SHA-256(JCS(proof options)) || SHA-256(JCS(document))."""
    return _sha256(canonical(proof_config)) + _sha256(canonical(unsecured))


def proof_config(document: Mapping[str, Any], verification_method: str, created: str) -> dict[str, Any]:
    config: dict[str, Any] = {
        "type": PROOF_TYPE,
        "cryptosuite": CRYPTOSUITE,
        "created": created,
        "verificationMethod": verification_method,
        "proofPurpose": "assertionMethod",
    }
    if "@context" in document:
        config["@context"] = document["@context"]
    return config


def add_proof(
    document: Mapping[str, Any], private_key: Ed25519PrivateKey, verification_method: str, created: str
) -> dict[str, Any]:
    """The document with an embedded eddsa-jcs-2022 DataIntegrityProof."""
    if "proof" in document:
        raise ValueError("the document already has a proof")
    config = proof_config(document, verification_method, created)
    signature = private_key.sign(hash_data(document, config))
    return {**document, "proof": {**config, "proofValue": multibase_base58(signature)}}


@dataclass(frozen=True, slots=True)
class ProofCheck:
    """The outcome of checking an embedded proof. `problem` names what failed: "no_proof", "proof_format",
    "cryptosuite", "purpose", "context", "unknown_key", "signature" or "canonical"."""

    valid: bool
    verification_method: str | None
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class PreparedProof:
    """What checking an embedded proof needs that the secured document alone decides: the verification method,
    the signature and the signed bytes (proofHash || documentHash), or the problem found before a key is looked
    up (`early`) or after (`late`: what could not be decoded or canonicalised). Checking it against a key is
    `check_proof`; the split lets a verifier that sees the same stored bytes again skip the hashing."""

    method: str | None
    early: str | None = None
    late: str | None = None
    signature: bytes = b""
    data: bytes = b""


def prepare_proof(secured: Mapping[str, Any]) -> PreparedProof:
    proof = secured.get("proof")
    if not isinstance(proof, Mapping):
        return PreparedProof(None, "no_proof")
    method = proof.get("verificationMethod")
    value = proof.get("proofValue")
    if not isinstance(method, str) or not isinstance(value, str):
        return PreparedProof(None, "proof_format")
    if proof.get("type") != PROOF_TYPE or proof.get("cryptosuite") != CRYPTOSUITE:
        return PreparedProof(method, "cryptosuite")
    if proof.get("proofPurpose") != "assertionMethod":
        return PreparedProof(method, "purpose")
    unsecured = {name: item for name, item in secured.items() if name != "proof"}
    config = {name: item for name, item in proof.items() if name != "proofValue"}
    if "@context" in config and config["@context"] != unsecured.get("@context"):
        return PreparedProof(method, "context")
    try:
        signature = multibase_decode(value) if value.startswith("z") else b""
        data = hash_data(unsecured, config)
    except EncodingError:
        return PreparedProof(method, late="signature")
    except CanonicalizationError:
        return PreparedProof(method, late="canonical")
    if len(signature) != SIGNATURE_BYTES:
        return PreparedProof(method, late="signature")
    return PreparedProof(method, signature=signature, data=data)


def check_proof(
    prepared: PreparedProof, resolve: KeyResolver, verified: VerifiedSignatures | None = None
) -> ProofCheck:
    """The Ed25519 check itself, against the key `resolve` gives for the proof's verification method (through
    `verified`, when given, which remembers the signatures it found valid)."""
    method = prepared.method
    if prepared.early is not None or method is None:
        return ProofCheck(False, method, prepared.early)
    public_key = resolve(method)
    if public_key is None:
        return ProofCheck(False, method, "unknown_key")
    if prepared.late is not None:
        return ProofCheck(False, method, prepared.late)
    if not _signature_valid(public_key, prepared.signature, prepared.data, verified):
        return ProofCheck(False, method, "signature")
    return ProofCheck(True, method)


def verify_proof(secured: Mapping[str, Any], resolve: KeyResolver) -> ProofCheck:
    return check_proof(prepare_proof(secured), resolve)


# --- compact JWS --------------------------------------------------------------------------------------------


def sign_jws(payload: Mapping[str, Any], private_key: Ed25519PrivateKey, kid: str) -> str:
    header = {"alg": JWS_ALGORITHM, "typ": JWS_TYPE, "kid": kid}
    signing_input = f"{b64url_encode(canonical(header))}.{b64url_encode(canonical(payload))}"
    signature = private_key.sign(signing_input.encode("ascii"))
    return f"{signing_input}.{b64url_encode(signature)}"


@dataclass(frozen=True, slots=True)
class JwsCheck:
    """The outcome of checking a compact JWS. `problem`: "jws_format", "algorithm", "type", "unknown_key" or
    "signature". The header and payload are those the token carries (None when unreadable)."""

    valid: bool
    header: dict[str, Any] | None
    payload: dict[str, Any] | None
    problem: str | None = None

    @property
    def kid(self) -> str | None:
        kid = (self.header or {}).get("kid")
        return kid if isinstance(kid, str) else None


def _json_object(data: bytes) -> dict[str, Any] | None:
    try:
        value = strict_json(data.decode("utf-8"))
    except DuplicateNameError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def decode_jws(token: str) -> JwsCheck:
    """The header and payload of a compact JWS, unverified (problem "jws_format" when unreadable)."""
    parts = token.strip().split(".")
    if len(parts) != 3:
        return JwsCheck(False, None, None, "jws_format")
    try:
        header = _json_object(b64url_decode(parts[0]))
        payload = _json_object(b64url_decode(parts[1]))
        b64url_decode(parts[2])
    except DuplicateNameError:
        return JwsCheck(False, None, None, "duplicate_names")
    except EncodingError:
        return JwsCheck(False, None, None, "jws_format")
    if header is None or payload is None:
        return JwsCheck(False, header, payload, "jws_format")
    return JwsCheck(False, header, payload)


class VerifiedSignatures:
    """Signatures found valid, by the exact public key bytes, signature and message: a bounded memory for a
    verifier that sees the same stored bytes again and again (the verification page checks a certificate's
    embedded proof and its JWS on every view). Ed25519 verification is a pure function of those three, so a
    remembered success weakens nothing; what can change between two views (which key the issuer publishes, the
    clock, the status bit) is still read for every one. Only successes are kept; a wrong signature is checked
    every time."""

    def __init__(self, size: int = 1024) -> None:
        self._seen: Remembered[tuple[bytes, bytes, bytes], bool] = Remembered(size)

    def verify(self, public_key: Ed25519PublicKey, signature: bytes, message: bytes) -> None:
        """Raises InvalidSignature as `public_key.verify` does."""
        key = (public_key.public_bytes_raw(), signature, message)
        if key in self._seen:
            return
        public_key.verify(signature, message)
        self._seen.put(key, True)


def _signature_valid(
    public_key: Ed25519PublicKey, signature: bytes, message: bytes, verified: VerifiedSignatures | None
) -> bool:
    """Whether the signature is valid, asking `verified` (which remembers the valid ones) when given."""
    try:
        if verified is not None:
            verified.verify(public_key, signature, message)
        else:
            public_key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


@dataclass(frozen=True, slots=True)
class PreparedJws:
    """A compact JWS decoded, with the problem its header shows before any key is looked up (`early`), and the
    signing input and signature `check_jws` verifies."""

    decoded: JwsCheck
    early: str | None = None
    signing_input: bytes = b""
    signature: bytes = b""


def prepare_jws(token: str) -> PreparedJws:
    decoded = decode_jws(token)
    if decoded.problem is not None:
        return PreparedJws(decoded, decoded.problem)
    header = decoded.header
    assert header is not None
    if header.get("alg") != JWS_ALGORITHM or "crit" in header:
        return PreparedJws(decoded, "algorithm")
    if header.get("typ") != JWS_TYPE:
        return PreparedJws(decoded, "type")
    signing_input, _, signature_text = token.strip().rpartition(".")
    return PreparedJws(decoded, None, signing_input.encode("ascii"), b64url_decode(signature_text))


def check_jws(prepared: PreparedJws, resolve: KeyResolver, verified: VerifiedSignatures | None = None) -> JwsCheck:
    decoded = prepared.decoded
    header, payload = decoded.header, decoded.payload
    if prepared.early is not None:
        return JwsCheck(False, header, payload, prepared.early)
    kid = decoded.kid
    public_key = resolve(kid) if kid is not None else None
    if public_key is None:
        return JwsCheck(False, header, payload, "unknown_key")
    if not _signature_valid(public_key, prepared.signature, prepared.signing_input, verified):
        return JwsCheck(False, header, payload, "signature")
    return JwsCheck(True, header, payload)


def verify_jws(token: str, resolve: KeyResolver, verified: VerifiedSignatures | None = None) -> JwsCheck:
    return check_jws(prepare_jws(token), resolve, verified)
