"""The Ed25519 check of a stored certificate is remembered per exact (public key, signature, message): each is
checked once, a failure is checked every time, and another key, or one changed byte, is checked anew."""

from __future__ import annotations

import copy
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from app.certificates.keys import SigningKey
from app.certificates.signing import VerifiedSignatures, add_proof, check_proof, prepare_proof
from tests.unit.certificates.test_signing import signed_vector

METHOD = "did:example:issuer#key"


class CountingKey:
    """An Ed25519 public key that counts the signature checks it is asked for."""

    def __init__(self, key: Ed25519PublicKey) -> None:
        self.key = key
        self.checks = 0

    def public_bytes_raw(self) -> bytes:
        return self.key.public_bytes_raw()

    def verify(self, signature: bytes, data: bytes) -> None:
        self.checks += 1
        self.key.verify(signature, data)


def signed(key: SigningKey, name: str = "Ada Lovelace") -> dict[str, Any]:
    unsigned = {name_: value for name_, value in signed_vector().items() if name_ != "proof"}
    unsigned["credentialSubject"] = {"name": name}
    return add_proof(unsigned, key.private, METHOD, "2026-12-01T00:00:00Z")


def check(document: dict[str, Any], key: CountingKey, verified: VerifiedSignatures | None) -> bool:
    resolve: Any = lambda method: key if method == METHOD else None  # noqa: E731  (the resolver a verifier hands in)
    return check_proof(prepare_proof(document), resolve, verified).valid


def test_a_valid_signature_is_checked_once_per_exact_key_signature_and_message() -> None:
    signer = SigningKey.generate()
    key = CountingKey(signer.private.public_key())
    verified = VerifiedSignatures()
    document = signed(signer)
    assert [check(document, key, verified) for _ in range(5)] == [True] * 5
    assert key.checks == 1
    other = signed(signer, "Grace Hopper")  # other bytes: checked anew
    assert check(other, key, verified)
    assert check(other, key, verified)
    assert key.checks == 2
    assert [check(document, key, None) for _ in range(2)] == [True, True]  # without the memory, every time
    assert key.checks == 4


def test_a_failure_is_never_remembered_and_another_key_is_checked_anew() -> None:
    signer = SigningKey.generate()
    key = CountingKey(signer.private.public_key())
    verified = VerifiedSignatures()
    document = signed(signer)
    changed = copy.deepcopy(document)
    changed["credentialSubject"]["name"] = "Eve Forger"
    assert [check(changed, key, verified) for _ in range(3)] == [False] * 3
    assert key.checks == 3
    assert check(document, key, verified)
    impostor = CountingKey(SigningKey.generate().private.public_key())  # the same method, another key
    assert [check(document, impostor, verified) for _ in range(2)] == [False, False]
    assert impostor.checks == 2
    assert check(document, key, verified)
    assert key.checks == 4
