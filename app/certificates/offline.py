"""Verifying a certificate file with public keys only, no database and no network (`interconnects
certificates verify FILE`): the keys come from this installation's key file or from the issuer's did.json or
jwks.json saved beside it, and revocation from a saved status list, if one is given (whose own proof is checked
first)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from app.certificates.credential import Issuer
from app.certificates.encoding import EncodingError, b64url_decode, public_key_from_multibase
from app.certificates.keys import PublicKey
from app.certificates.signing import verify_proof
from app.certificates.statuslist import decode_encoded_list, is_set
from app.certificates.verification import Verification, Verifier


class OfflineError(ValueError):
    """A file cannot be read as what it should be; the message says which and why."""


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise OfflineError(f"{path}: not readable JSON ({error})") from None


def keys_from_file(path: Path) -> list[PublicKey]:
    """Ed25519 keys from a DID document (Multikey or JsonWebKey methods) or a JWK set."""
    document = _read_json(path)
    found: dict[str, PublicKey] = {}
    entries: Iterable[Any] = []
    if isinstance(document, dict):
        entries = document.get("verificationMethod") or document.get("keys") or []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        try:
            if isinstance(entry.get("publicKeyMultibase"), str):
                key = PublicKey(public_key_from_multibase(entry["publicKeyMultibase"]))
            else:
                jwk = entry.get("publicKeyJwk", entry)
                if not (isinstance(jwk, dict) and jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519"):
                    continue
                key = PublicKey(b64url_decode(str(jwk.get("x", ""))))
        except EncodingError:
            continue
        if len(key.raw) == 32:
            found[key.thumbprint] = key
    if not found:
        raise OfflineError(f"{path}: no Ed25519 key in it (expected a did.json or a jwks.json)")
    return list(found.values())


def _status_lookup(path: Path | None, issuer: Issuer, keys: dict[str, PublicKey]) -> Any:
    if path is None:
        return lambda _number, _index: None
    document = _read_json(path)
    if not isinstance(document, dict):
        raise OfflineError(f"{path}: not a status list credential")

    def resolve(method: str) -> Any:
        thumbprint = issuer.thumbprint_of(method)
        key = keys.get(thumbprint) if thumbprint else None
        return key.key if key is not None else None

    if not verify_proof(document, resolve).valid:
        raise OfflineError(f"{path}: the status list's own signature does not verify")
    try:
        number = int(str(document["id"]).rsplit("/", 1)[1])
        bits = decode_encoded_list(str(document["credentialSubject"]["encodedList"]))
    except (KeyError, IndexError, ValueError, EncodingError, OSError, EOFError) as error:
        raise OfflineError(f"{path}: not a Bitstring Status List ({error})") from None

    def revoked(list_number: int, index: int) -> bool | None:
        if list_number != number or index >= len(bits) * 8:
            return None
        return is_set(bits, index)

    return revoked


def verify_file(
    path: Path, issuer: Issuer, keys: Iterable[PublicKey], status_list: Path | None, now: datetime
) -> Verification:
    by_thumbprint = {key.thumbprint: key for key in keys}
    verifier = Verifier(issuer, by_thumbprint.get, _status_lookup(status_list, issuer, by_thumbprint))
    try:
        text = path.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise OfflineError(f"{path}: cannot read it ({error})") from None
    if text.startswith("{"):
        return verifier.submitted(text, now)
    return verifier.jws(text, now)
