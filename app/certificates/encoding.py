"""The byte encodings credentials use: base64url without padding, base58btc, multibase and multicodec keys.

Pure and small enough to own: base58btc is twenty lines, and a dependency for it would be one more thing that can
drift from the W3C test vectors the unit tests hold it to.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_INDEX = {character: index for index, character in enumerate(BASE58_ALPHABET)}
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
ED25519_PUBLIC_PREFIX = b"\xed\x01"  # multicodec ed25519-pub, as an unsigned varint
ED25519_PRIVATE_PREFIX = b"\x80\x26"  # multicodec ed25519-priv


class EncodingError(ValueError):
    """Bytes or text that are not what they claim to be."""


class DuplicateNameError(EncodingError):
    """A JSON object names a member twice. RFC 8785 and I-JSON (RFC 7493) forbid it, and consumers disagree on
    which value wins ("identityHash": "Eve", "identityHash": "Ada"), so a verifier must not pick one."""


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members = dict(pairs)
    if len(members) != len(pairs):
        raise DuplicateNameError("a JSON object names a member twice")
    return members


def strict_json(text: str | bytes) -> Any:
    """json.loads, refusing an object that names a member twice (DuplicateNameError, a ValueError)."""
    return json.loads(text, object_pairs_hook=_unique_members)


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict base64url without padding (RFC 7515 §2): other alphabets and stray characters are refused."""
    if _BASE64URL.fullmatch(text) is None or len(text) % 4 == 1:
        raise EncodingError("not base64url")
    try:
        decoded = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError as error:
        raise EncodingError("not base64url") from error
    if b64url_encode(decoded) != text:  # non-canonical trailing bits
        raise EncodingError("not base64url")
    return decoded


def base58_encode(data: bytes) -> str:
    number = int.from_bytes(data, "big")
    digits = []
    while number:
        number, remainder = divmod(number, 58)
        digits.append(BASE58_ALPHABET[remainder])
    leading_zeros = len(data) - len(data.lstrip(b"\0"))
    return "1" * leading_zeros + "".join(reversed(digits))


def base58_decode(text: str) -> bytes:
    number = 0
    for character in text:
        index = _BASE58_INDEX.get(character)
        if index is None:
            raise EncodingError("not base58btc")
        number = number * 58 + index
    leading_zeros = len(text) - len(text.lstrip("1"))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\0" * leading_zeros + body


def multibase_base58(data: bytes) -> str:
    return "z" + base58_encode(data)


def multibase_decode(text: str) -> bytes:
    """Multibase 'z' (base58btc) or 'u' (base64url without padding)."""
    if text.startswith("z"):
        return base58_decode(text[1:])
    if text.startswith("u"):
        return b64url_decode(text[1:])
    raise EncodingError("unsupported multibase prefix")


def public_key_multibase(raw_public_key: bytes) -> str:
    return multibase_base58(ED25519_PUBLIC_PREFIX + raw_public_key)


def public_key_from_multibase(text: str) -> bytes:
    decoded = multibase_decode(text)
    if not decoded.startswith(ED25519_PUBLIC_PREFIX) or len(decoded) != 34:
        raise EncodingError("not an Ed25519 Multikey")
    return decoded[2:]


def private_key_from_multibase(text: str) -> bytes:
    decoded = multibase_decode(text)
    if not decoded.startswith(ED25519_PRIVATE_PREFIX) or len(decoded) != 34:
        raise EncodingError("not an Ed25519 private Multikey")
    return decoded[2:]
