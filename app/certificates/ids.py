"""Certificate ids: 128 random bits in Crockford base32 (26 characters), read back case-insensitively.

Crockford's alphabet leaves out I, L, O and U, so an id read aloud or retyped from paper survives: input is
upper-cased, O is read as 0 and I, L as 1, and hyphens and spaces are ignored. Anything else, or a value with more
than 128 bits, is not an id; the web layer answers it exactly like an unknown id (404), so a malformed id
reveals nothing.
"""

from __future__ import annotations

import secrets

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ID_BITS = 128
ID_LENGTH = 26  # ceil(128 / 5)
_VALUES = {character: value for value, character in enumerate(ALPHABET)}
_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None, " ": None})
MAX_INPUT_LENGTH = 64


def new_certificate_id() -> str:
    return encode(secrets.randbits(ID_BITS))


def encode(number: int) -> str:
    if not 0 <= number < 1 << ID_BITS:
        raise ValueError("a certificate id has 128 bits")
    characters = []
    for _ in range(ID_LENGTH):
        number, value = divmod(number, 32)
        characters.append(ALPHABET[value])
    return "".join(reversed(characters))


def normalise(text: str) -> str | None:
    """The canonical id for what a person typed, or None when it is not an id."""
    if len(text) > MAX_INPUT_LENGTH or not text.isascii():
        return None
    candidate = text.upper().translate(_READ_AS)
    if len(candidate) != ID_LENGTH or any(character not in _VALUES for character in candidate):
        return None
    if _VALUES[candidate[0]] >= 1 << (ID_BITS - 5 * (ID_LENGTH - 1)):  # the first character carries 3 bits
        return None
    return candidate
