"""The issuer's Ed25519 keys: a PEM file of private keys, oldest first, the last one signing.

The file is what `openssl genpkey -algorithm ed25519` writes, one PKCS #8 block per key, so an operator can make
or inspect it with OpenSSL alone. Rotating appends a new block: the old keys stay in the file (and every key that
ever signed is also recorded in the database, see CertificateKey), so certificates they signed keep verifying
and /.well-known/did.json keeps listing them.

A key's id is its RFC 7638 JWK thumbprint. Private keys never leave this module in printable form: no repr, no
log line and no error message shows one.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from app.certificates.encoding import b64url_encode, public_key_multibase
from app.certificates.signing import canonical

_PEM_BLOCK = re.compile(rb"-----BEGIN PRIVATE KEY-----\s.*?-----END PRIVATE KEY-----\s*", re.DOTALL)
KEY_FILE_MODE = 0o600


class KeyFileError(RuntimeError):
    """The key file is missing, unreadable or holds something other than Ed25519 private keys (the message names
    the file, never its content)."""


@dataclass(frozen=True, slots=True)
class PublicKey:
    raw: bytes  # the 32 bytes of the Ed25519 public key

    @classmethod
    def from_key(cls, key: Ed25519PublicKey) -> PublicKey:
        return cls(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))

    @property
    def thumbprint(self) -> str:
        """RFC 7638: SHA-256 over the required JWK members in canonical order; the key's id."""
        return _thumbprint(self.raw)

    def jwk(self, kid: str) -> dict[str, str]:
        return {"crv": "Ed25519", "kty": "OKP", "x": b64url_encode(self.raw), "kid": kid, "alg": "EdDSA", "use": "sig"}

    @property
    def multibase(self) -> str:
        return public_key_multibase(self.raw)

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the raw key, as OpenSSH prints fingerprints: easy to compare by eye."""
        digest = base64.b64encode(hashlib.sha256(self.raw).digest()).decode("ascii").rstrip("=")
        return f"SHA256:{digest}"

    @property
    def pem(self) -> str:
        return (
            self.key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode("ascii")
            .strip()
        )

    @property
    def key(self) -> Ed25519PublicKey:
        return _ed25519(self.raw)


# Both are asked for on every view of a certificate, of the same few keys.
@lru_cache(maxsize=256)
def _thumbprint(raw: bytes) -> str:
    members = {"crv": "Ed25519", "kty": "OKP", "x": b64url_encode(raw)}
    return b64url_encode(hashlib.sha256(canonical(members)).digest())


@lru_cache(maxsize=256)
def _ed25519(raw: bytes) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(raw)


@dataclass(frozen=True, slots=True)
class SigningKey:
    public: PublicKey
    private: Ed25519PrivateKey = field(repr=False, compare=False)

    @classmethod
    def from_private(cls, private: Ed25519PrivateKey) -> SigningKey:
        return cls(PublicKey.from_key(private.public_key()), private)

    @classmethod
    def generate(cls) -> SigningKey:
        return cls.from_private(Ed25519PrivateKey.generate())

    @property
    def thumbprint(self) -> str:
        return self.public.thumbprint

    def pem(self) -> bytes:
        return self.private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )


@dataclass(frozen=True, slots=True)
class KeyRing:
    """Every key of the file, oldest first; the last one signs."""

    keys: tuple[SigningKey, ...]

    def __post_init__(self) -> None:
        if not self.keys:
            raise KeyFileError("the key ring is empty")

    @property
    def active(self) -> SigningKey:
        return self.keys[-1]

    def public_keys(self) -> dict[str, PublicKey]:
        return {key.thumbprint: key.public for key in self.keys}

    @classmethod
    def load(cls, path: Path) -> KeyRing:
        try:
            data = path.read_bytes()
        except OSError as error:
            raise KeyFileError(f"cannot read the certificate key file {path}: {error.strerror}") from None
        keys = []
        for number, block in enumerate(_PEM_BLOCK.findall(data), start=1):
            try:
                private = serialization.load_pem_private_key(block, password=None)
            except (ValueError, TypeError):
                raise KeyFileError(f"{path}: key {number} is not an unencrypted PKCS #8 private key") from None
            if not isinstance(private, Ed25519PrivateKey):
                raise KeyFileError(f"{path}: key {number} is not an Ed25519 key")
            keys.append(SigningKey.from_private(private))
        if not keys:
            raise KeyFileError(f"{path} holds no PEM private key (make one: openssl genpkey -algorithm ed25519)")
        return cls(tuple(keys))

    @classmethod
    def load_or_generate(cls, path: Path) -> KeyRing:
        """The development ring: the file under VAR_DIR, created with one new key (mode 0600) when missing."""
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_new(path, SigningKey.generate().pem(), exclusive=True)
        return cls.load(path)

    def rotated(self, path: Path) -> KeyRing:
        """Append a new signing key to the file (atomically, mode 0600) and return the new ring."""
        key = SigningKey.generate()
        _write_new(path, b"".join(existing.pem() for existing in self.keys) + key.pem(), exclusive=False)
        return KeyRing((*self.keys, key))


def _write_new(path: Path, data: bytes, exclusive: bool) -> None:
    """Write the whole file under a temporary name with mode 0600, then move it into place: never readable by
    others, never seen half-written. `exclusive` keeps a file another process made first (a hard link fails
    when the name exists, where a rename would replace it)."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".keys-")
    try:
        os.fchmod(descriptor, KEY_FILE_MODE)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if exclusive:
            with contextlib.suppress(FileExistsError):  # another process made it first: keep theirs
                os.link(temporary, path)
        else:
            os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
