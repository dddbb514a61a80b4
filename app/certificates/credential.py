"""The documents this issuer signs, as plain JSON values: the Open Badges 3.0 credential, its JWS payload, the
Bitstring Status List credential, and the issuer's profile, DID document and JWK set.

Open Badges 3.0 (1EdTech) on the W3C Verifiable Credentials Data Model 2.0: an `OpenBadgeCredential` whose
`credentialSubject` is an `AchievementSubject` carrying no `id` (learners have no DID) but `identifier`s:
IdentityObjects for the printed name (plain) and, when given, the e-mail address (salted SHA-256, `hashed`).
The issuer is `did:web:<host>` (a port is percent-encoded, as the did:web method asks), with one Multikey and
one JsonWebKey verification method per key, both named after the key's RFC 7638 thumbprint.
"""

from __future__ import annotations

import gzip
import hashlib
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlsplit

from app.certificates.encoding import b64url_encode
from app.certificates.keys import PublicKey

VC_CONTEXT = "https://www.w3.org/ns/credentials/v2"
OB_CONTEXT = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"
DID_CONTEXTS = (
    "https://www.w3.org/ns/did/v1",
    "https://w3id.org/security/multikey/v1",
    "https://w3id.org/security/jwk/v1",
)
STATUS_PURPOSE = "revocation"
SALT_BYTES = 16


def timestamp(moment: datetime) -> str:
    """XML Schema dateTime in UTC to the second, as VC 2.0 examples write it: 2026-12-01T09:30:00Z."""
    return f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"


def parse_timestamp(text: str) -> datetime:
    """The instant of a dateTime this module wrote (or any ISO 8601 one with a zone); raises ValueError."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError("a dateTime without a time zone")
    return moment.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class Issuer:
    base_url: str  # the public origin, no trailing slash
    name: str
    did: str = field(init=False)  # did:web of the origin (asked for a dozen times per verification)

    def __post_init__(self) -> None:
        object.__setattr__(self, "did", f"did:web:{quote(urlsplit(self.base_url).netloc, safe='')}")

    def method_id(self, thumbprint: str) -> str:
        """The Multikey verification method: what a DataIntegrityProof names."""
        return f"{self.did}#{thumbprint}"

    def jws_kid(self, thumbprint: str) -> str:
        """The JsonWebKey verification method: what a JWS header's kid names."""
        return f"{self.did}#{thumbprint}-jwk"

    def thumbprint_of(self, method: str) -> str | None:
        """The key a verification method or kid of this issuer names; None for anyone else's."""
        prefix = f"{self.did}#"
        if not method.startswith(prefix):
            return None
        return method[len(prefix) :].removesuffix("-jwk") or None

    @property
    def profile_url(self) -> str:
        return f"{self.base_url}/issuer"

    def certificate_url(self, certificate_id: str) -> str:
        return f"{self.base_url}/c/{certificate_id}"

    def status_list_url(self, number: int) -> str:
        return f"{self.base_url}/status/{number}"

    def badge_url(self, extension: str) -> str:
        """The achievement's badge art ("svg" or "png"): one stable URL per format, for every certificate."""
        return f"{self.base_url}/issuer/badge.{extension}"

    def profile(self) -> dict[str, Any]:
        return {"id": self.did, "type": ["Profile"], "name": self.name, "url": self.profile_url}


@dataclass(frozen=True, slots=True)
class Achievement:
    """What the certificate attests, in the certificate's language."""

    name: str
    description: str
    criteria: str
    criteria_url: str
    language: str
    image_url: str | None = None  # the badge art (OB 3.0 Achievement.image), as PNG: what wallets show
    image_caption: str | None = None
    tags: tuple[str, ...] = ()  # the skills it attests (OB 3.0 Achievement.tag)


@dataclass(frozen=True, slots=True)
class DrawnQuestion:
    question_id: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ExamEvidence:
    """The passed attempt as the credential records it: enough to regenerate the exam, never the answers."""

    seed: int
    questions: tuple[DrawnQuestion, ...]
    score_percent: int
    pass_percent: int
    finished_at: datetime
    content_version: str


def identity_hash(email: str, salt: str) -> str:
    """OB 3.0 IdentityObject hash: "sha256$" + hex SHA-256 of the address followed by the salt."""
    return "sha256$" + hashlib.sha256((email.strip().lower() + salt).encode("utf-8")).hexdigest()


def new_salt() -> str:
    return secrets.token_hex(SALT_BYTES)


def identifiers(name: str, email: str | None, salt: str | None) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [
        {"type": "IdentityObject", "identityType": "name", "hashed": False, "identityHash": name}
    ]
    if email is not None and salt is not None:
        items.append(
            {
                "type": "IdentityObject",
                "identityType": "emailAddress",
                "hashed": True,
                "identityHash": identity_hash(email, salt),
                "salt": salt,
            }
        )
    return items


def status_entry(issuer: Issuer, number: int, index: int) -> dict[str, Any]:
    list_url = issuer.status_list_url(number)
    return {
        "id": f"{list_url}#{index}",
        "type": "BitstringStatusListEntry",
        "statusPurpose": STATUS_PURPOSE,
        "statusListIndex": str(index),
        "statusListCredential": list_url,
    }


def evidence_entry(evidence: ExamEvidence, name: str, description: str) -> dict[str, Any]:
    # The seed is a string: JCS (and JSON itself, in JavaScript) only carries integers up to 2^53 exactly.
    return {
        "type": ["Evidence"],
        "name": name,
        "description": description,
        "genre": "Assessment",
        "contentVersion": evidence.content_version,
        "exam": {
            "seed": str(evidence.seed),
            "questions": [{"id": item.question_id, "parameters": dict(item.parameters)} for item in evidence.questions],
            "scorePercent": evidence.score_percent,
            "passPercent": evidence.pass_percent,
            "finishedAt": timestamp(evidence.finished_at),
        },
    }


def open_badge_credential(
    *,
    issuer: Issuer,
    certificate_id: str,
    issued_at: datetime,
    achievement: Achievement,
    subject_identifiers: Sequence[Mapping[str, Any]],
    status: Mapping[str, Any],
    evidence: Iterable[Mapping[str, Any]],
) -> dict[str, Any]:
    """The unsigned OpenBadgeCredential."""
    return {
        "@context": [VC_CONTEXT, OB_CONTEXT],
        "id": issuer.certificate_url(certificate_id),
        "type": ["VerifiableCredential", "OpenBadgeCredential"],
        "issuer": issuer.profile(),
        "validFrom": timestamp(issued_at),
        "name": achievement.name,
        "credentialSubject": {
            "type": ["AchievementSubject"],
            "identifier": [dict(item) for item in subject_identifiers],
            "achievement": {
                "id": f"{issuer.profile_url}#course",
                "type": ["Achievement"],
                "achievementType": "Certificate",
                "name": achievement.name,
                "description": achievement.description,
                "criteria": {"id": achievement.criteria_url, "narrative": achievement.criteria},
                "inLanguage": achievement.language,
                **_achievement_extras(achievement),
            },
        },
        "credentialStatus": dict(status),
        "evidence": [dict(item) for item in evidence],
    }


def _achievement_extras(achievement: Achievement) -> dict[str, Any]:
    extras: dict[str, Any] = {}
    if achievement.image_url is not None:
        image = {"id": achievement.image_url, "type": "Image"}
        extras["image"] = image | ({"caption": achievement.image_caption} if achievement.image_caption else {})
    if achievement.tags:
        extras["tag"] = list(achievement.tags)
    return extras


def jwt_payload(credential: Mapping[str, Any]) -> dict[str, Any]:
    """OB 3.0 §8.2 / VC-JWT: the credential itself plus the registered claims derived from it."""
    payload = {name: value for name, value in credential.items() if name != "proof"}
    issuer = credential["issuer"]
    payload["iss"] = issuer["id"] if isinstance(issuer, Mapping) else issuer
    payload["jti"] = credential["id"]
    payload["nbf"] = int(parse_timestamp(str(credential["validFrom"])).timestamp())
    subject_id = credential.get("credentialSubject", {}).get("id")
    if subject_id is not None:
        payload["sub"] = subject_id
    if "validUntil" in credential:
        payload["exp"] = int(parse_timestamp(str(credential["validUntil"])).timestamp())
    return payload


def encode_bitstring(bits: bytes) -> str:
    """W3C Bitstring Status List encodedList: GZIP, then multibase base64url (prefix "u", no padding)."""
    return "u" + b64url_encode(gzip.compress(bits, compresslevel=9, mtime=0))


def status_list_credential(issuer: Issuer, number: int, bits: bytes, valid_from: datetime) -> dict[str, Any]:
    url = issuer.status_list_url(number)
    return {
        "@context": [VC_CONTEXT],
        "id": url,
        "type": ["VerifiableCredential", "BitstringStatusListCredential"],
        "issuer": issuer.did,
        "validFrom": timestamp(valid_from),
        "credentialSubject": {
            "id": f"{url}#list",
            "type": "BitstringStatusList",
            "statusPurpose": STATUS_PURPOSE,
            "encodedList": encode_bitstring(bits),
        },
    }


def did_document(issuer: Issuer, keys: Iterable[PublicKey]) -> dict[str, Any]:
    methods: list[dict[str, Any]] = []
    for key in keys:
        methods.append(
            {
                "id": issuer.method_id(key.thumbprint),
                "type": "Multikey",
                "controller": issuer.did,
                "publicKeyMultibase": key.multibase,
            }
        )
        methods.append(
            {
                "id": issuer.jws_kid(key.thumbprint),
                "type": "JsonWebKey",
                "controller": issuer.did,
                "publicKeyJwk": key.jwk(issuer.jws_kid(key.thumbprint)),
            }
        )
    ids = [method["id"] for method in methods]
    return {
        "@context": list(DID_CONTEXTS),
        "id": issuer.did,
        "verificationMethod": methods,
        "assertionMethod": ids,
        "authentication": [],
    }


def jwk_set(issuer: Issuer, keys: Iterable[PublicKey]) -> dict[str, Any]:
    return {"keys": [key.jwk(issuer.jws_kid(key.thumbprint)) for key in keys]}
