"""eddsa-jcs-2022 and the JWS: the W3C known-answer vectors byte for byte, sign -> verify for any name, a single
changed field breaks the proof, and OpenSSL's command line verifies the JWS."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.certificates import credential as documents
from app.certificates.encoding import (
    b64url_decode,
    b64url_encode,
    base58_decode,
    base58_encode,
    private_key_from_multibase,
    public_key_multibase,
)
from app.certificates.keys import PublicKey, SigningKey
from app.certificates.names import NameRejectedError, normalise_name
from app.certificates.signing import (
    CanonicalizationError,
    VerifiedSignatures,
    add_proof,
    canonical,
    decode_jws,
    hash_data,
    proof_config,
    sign_jws,
    verify_jws,
    verify_proof,
)
from app.certificates.verification import Verifier
from tests.unit.certificates.helpers import VECTORS, issuer, vector
from tests.unit.quiz.helpers import T0

KEY = SigningKey.generate()


def vector_key() -> Ed25519PrivateKey:
    pair = json.loads((VECTORS / "keyPair.json").read_text("utf-8"))
    private = Ed25519PrivateKey.from_private_bytes(private_key_from_multibase(pair["privateKeyMultibase"]))
    assert public_key_multibase(PublicKey.from_key(private.public_key()).raw) == pair["publicKeyMultibase"]
    return private


def signed_vector() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(vector("signedJCS.json"))
    return document


def test_the_w3c_vectors_are_reproduced_byte_for_byte() -> None:
    signed = signed_vector()
    unsigned = {name: value for name, value in signed.items() if name != "proof"}
    options = json.loads(vector("proofConfigJCS.json"))
    assert canonical(unsigned).decode("utf-8") == vector("canonDocJCS.txt").strip()
    assert canonical(options).decode("utf-8") == vector("proofCanonJCS.txt").strip()
    assert hash_data(unsigned, options).hex() == vector("combinedHashJCS.txt").strip()
    assert hash_data(unsigned, options)[32:].hex() == vector("docHashJCS.txt").strip()

    secured = add_proof(unsigned, vector_key(), options["verificationMethod"], options["created"])
    assert secured["proof"]["proofValue"] == signed["proof"]["proofValue"] == vector("sigBTC58JCS.txt").strip()
    assert base58_decode(secured["proof"]["proofValue"][1:]).hex() == vector("sigHexJCS.txt").strip()
    assert {k: v for k, v in secured["proof"].items() if k != "proofValue"} == options
    assert proof_config(unsigned, options["verificationMethod"], options["created"]) == options


def test_the_w3c_signed_document_verifies_and_a_changed_one_does_not() -> None:
    public = vector_key().public_key()
    signed = signed_vector()
    assert verify_proof(signed, lambda _method: public).valid
    changed = {**signed, "credentialSubject": {**signed["credentialSubject"], "alumniOf": "Another School"}}
    check = verify_proof(changed, lambda _method: public)
    assert (check.valid, check.problem) == (False, "signature")
    assert verify_proof(signed, lambda _method: None).problem == "unknown_key"
    options_changed = {**signed, "proof": {**signed["proof"], "created": "2023-02-24T23:36:39Z"}}
    assert verify_proof(options_changed, lambda _method: public).problem == "signature"


def test_base58_round_trips_leading_zeros() -> None:
    for data in (b"", b"\0", b"\0\0\1", bytes(range(40))):
        assert base58_decode(base58_encode(data)) == data


def credential_for(name: str, email: str | None = None) -> dict[str, Any]:
    return documents.open_badge_credential(
        issuer=issuer(),
        certificate_id="0123456789ABCDEFGHJKMNPQRS",
        issued_at=T0,
        achievement=documents.Achievement(
            "Interconnects", "A course", "Passed", "https://course.example/en/exam", "en"
        ),
        subject_identifiers=documents.identifiers(name, email, "00" * 16 if email else None),
        status=documents.status_entry(issuer(), 1, 4242),
        evidence=[{"type": ["Evidence"], "name": "Final exam", "exam": {"seed": str(2**62), "scorePercent": 90}}],
    )


def sign(document: dict[str, Any]) -> dict[str, Any]:
    return add_proof(document, KEY.private, issuer().method_id(KEY.thumbprint), "2026-12-01T09:00:00Z")


def resolve(method: str) -> Any:
    return KEY.public.key if issuer().thumbprint_of(method) == KEY.thumbprint else None


names = st.text(min_size=1, max_size=110)


def printable(raw: str) -> str:
    try:
        return normalise_name(raw)
    except NameRejectedError:
        assume(False)
        raise


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(raw=names)
def test_any_printable_name_signs_and_verifies_as_proof_and_as_jws(raw: str) -> None:
    name = printable(raw)
    signed = sign(credential_for(name))
    assert verify_proof(json.loads(json.dumps(signed, ensure_ascii=False)), resolve).valid
    token = sign_jws(documents.jwt_payload(credential_for(name)), KEY.private, issuer().jws_kid(KEY.thumbprint))
    checked = verify_jws(token, resolve)
    assert checked.valid
    assert checked.payload is not None
    assert checked.payload["credentialSubject"]["identifier"][0]["identityHash"] == name


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in leaves(item, (*path, key))]
    if isinstance(value, list):
        return [leaf for index, item in enumerate(value) for leaf in leaves(item, (*path, index))]
    return [path]


def changed(document: Any, path: tuple[Any, ...], replacement: Any) -> Any:
    copy = json.loads(json.dumps(document))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = replacement
    return copy


def other_value(value: Any, salt: int) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1 + salt
    return f"{value}{chr(0x61 + salt % 26)}"


SIGNED = sign(credential_for("김민준 Ada", "ada@example.org"))
ALL_LEAVES = leaves(SIGNED)


@settings(max_examples=200, deadline=None)
@given(path=st.sampled_from(ALL_LEAVES), salt=st.integers(0, 1000))
def test_changing_any_single_field_fails_verification(path: tuple[Any, ...], salt: int) -> None:
    tampered = changed(SIGNED, path, other_value(_at(SIGNED, path), salt))
    check = verify_proof(tampered, resolve)
    assert not check.valid, path


def _at(document: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        document = document[step]
    return document


def test_adding_or_removing_a_field_fails_verification() -> None:
    assert not verify_proof({**SIGNED, "validUntil": "2030-01-01T00:00:00Z"}, resolve).valid
    subject = {k: v for k, v in SIGNED["credentialSubject"].items() if k != "identifier"}
    assert not verify_proof({**SIGNED, "credentialSubject": subject}, resolve).valid


def test_a_jws_with_another_algorithm_type_or_key_is_refused() -> None:
    token = sign_jws({"iss": "x"}, KEY.private, issuer().jws_kid(KEY.thumbprint))
    header, payload, signature = token.split(".")
    decoded = decode_jws(token)
    assert decoded.header == {"alg": "EdDSA", "typ": "vc+jwt", "kid": issuer().jws_kid(KEY.thumbprint)}
    forged_header = json.loads(b64url_decode(header))
    for change, problem in (({"alg": "none"}, "algorithm"), ({"typ": "JWT"}, "type"), ({"kid": "x"}, "unknown_key")):
        other = b64url_encode(json.dumps(forged_header | change).encode())
        assert verify_jws(f"{other}.{payload}.{signature}", resolve).problem == problem
    assert verify_jws(f"{header}.{payload}x.{signature}", resolve).problem in ("jws_format", "signature")
    assert verify_jws("not a token", resolve).problem == "jws_format"


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_openssl_verifies_the_jws_with_the_public_key_alone(tmp_path: Path) -> None:
    token = sign_jws(documents.jwt_payload(credential_for("김민준")), KEY.private, issuer().jws_kid(KEY.thumbprint))
    header, payload, signature = token.split(".")
    (tmp_path / "issuer.pem").write_text(KEY.public.pem + "\n")
    (tmp_path / "signed-part").write_text(f"{header}.{payload}")
    (tmp_path / "signature").write_bytes(b64url_decode(signature))
    command = ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", "issuer.pem", "-rawin"]
    command += ["-in", "signed-part", "-sigfile", "signature"]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "Signature Verified Successfully" in result.stdout

    (tmp_path / "signed-part").write_text(f"{header}.{payload[:-2]}AA")
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode != 0
    assert "Signature Verified Successfully" not in result.stdout


def test_remembered_canonical_forms_never_stand_in_for_a_different_value() -> None:
    assert canonical({"1": 2, "b": [1.0, True]}) == b'{"1":2,"b":[1,true]}'
    assert canonical({"b": [1.0, True], "1": 2}) == b'{"1":2,"b":[1,true]}'  # another key order, same bytes
    with pytest.raises(CanonicalizationError):
        canonical({1: 2, "b": [1.0, True]})  # looks like the first as JSON text, but keys must be strings
    assert canonical({"1": 2, "b": [1, 1]}) == b'{"1":2,"b":[1,1]}'  # True is not 1
    with pytest.raises(CanonicalizationError):
        canonical({"x": 2**60})
    with pytest.raises(CanonicalizationError):
        canonical({"x": 2**60})  # a refusal is not remembered as bytes either


def test_a_remembered_jws_signature_vouches_for_those_exact_bytes_and_key_only() -> None:
    signer, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    token = sign_jws({"sub": "x"}, signer, "did:web:course.example#k-jwk")
    remembered = VerifiedSignatures(size=2)

    def check(candidate: str, key: Ed25519PrivateKey) -> bool:
        return verify_jws(candidate, lambda _kid: key.public_key(), remembered).valid

    assert check(token, signer)
    assert check(token, signer)  # now from memory
    assert not check(token, other)  # the same bytes under another key
    header, payload, signature = token.split(".")
    changed = sign_jws({"sub": "y"}, signer, "did:web:course.example#k-jwk").split(".")[1]
    assert not check(f"{header}.{changed}.{signature}", signer)  # the remembered signature over other bytes
    assert not check(f"{header}.{payload}.{signature[:-2]}AA", signer)
    for number in range(3):  # the memory stays bounded, and what left it is checked again
        assert check(sign_jws({"sub": str(number)}, signer, "did:web:course.example#k-jwk"), signer)
    assert check(token, signer)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
ALL_PLACES = sorted({path[:length] for path in ALL_LEAVES for length in range(1, len(path) + 1)}, key=str)


def fuzz_verifier() -> Verifier:
    return Verifier(
        issuer(),
        lambda thumbprint: KEY.public if thumbprint == KEY.thumbprint else None,
        lambda number, index: False if number == 1 else None,
    )


@settings(max_examples=300, deadline=None)
@given(path=st.sampled_from(ALL_PLACES), replacement=JSON_VALUES, as_jws=st.booleans())
def test_no_credential_makes_the_verifier_fail_only_a_check(
    path: tuple[Any, ...], replacement: Any, as_jws: bool
) -> None:
    """Any JSON value at any place of a signed credential (or of a JWS payload) gets a verdict, never an error."""
    document = changed(SIGNED, path, replacement)
    if as_jws:
        unsigned = {key: value for key, value in document.items() if key != "proof"}
        payload = b64url_encode(json.dumps(unsigned).encode())
        header = b64url_encode(json.dumps({"alg": "EdDSA", "typ": "vc+jwt", "kid": "x"}).encode())
        raw = json.dumps({"jwt": f"{header}.{payload}.{b64url_encode(b'0' * 64)}"})
    else:
        raw = json.dumps(document)
    verdict = fuzz_verifier().submitted(raw, T0)
    assert isinstance(verdict.valid, bool)
    if not as_jws and replacement != _at(SIGNED, path):
        assert not verdict.valid


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_bytes_get_a_verdict(raw: bytes) -> None:
    assert fuzz_verifier().submitted(raw, T0).valid is False
