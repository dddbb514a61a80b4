"""W3C Bitstring Status List v1.0, the revocation half: a bitstring whose bit i says whether the certificate at
index i is revoked. Pure functions over bytes.

Bit order is the specification's: index 0 is the most significant bit of the first byte. A list holds at least
131,072 entries (16 KiB), the specification's minimum for herd privacy: a verifier who fetches the list learns
nothing about which of its many certificates it is checking. Indexes are drawn at random for the same reason
(sequential ones would date a certificate and count the issuer's certificates).
"""

from __future__ import annotations

import gzip
import io
import secrets
from collections.abc import Callable

from app.certificates.encoding import multibase_decode
from app.formatting import MiB

LIST_SIZE = 131_072
# A list takes new certificates until half its entries are used; past that, drawing a free index at random
# would need ever more tries, and a fresh list is cheap.
FILL_LIMIT = LIST_SIZE // 2
MAX_DECODED_BYTES = 16 * MiB


def empty_bits(size: int = LIST_SIZE) -> bytes:
    if size % 8 or size < LIST_SIZE:
        raise ValueError(f"a status list has a multiple of 8 entries, at least {LIST_SIZE}")
    return bytes(size // 8)


def is_set(bits: bytes, index: int) -> bool:
    if not 0 <= index < len(bits) * 8:
        raise IndexError(index)
    return bool(bits[index // 8] & (0x80 >> (index % 8)))


def with_bit(bits: bytes, index: int, value: bool = True) -> bytes:
    if not 0 <= index < len(bits) * 8:
        raise IndexError(index)
    changed = bytearray(bits)
    mask = 0x80 >> (index % 8)
    changed[index // 8] = changed[index // 8] | mask if value else changed[index // 8] & ~mask
    return bytes(changed)


def free_index(is_taken: Callable[[int], bool], size: int = LIST_SIZE) -> int:
    """A uniformly random index that is not taken. The list is at most half full (FILL_LIMIT), so each draw
    succeeds with probability >= 1/2: two tries on average, and 20 fail together less than once in a million."""
    while True:
        index = secrets.randbelow(size)
        if not is_taken(index):
            return index


def decode_encoded_list(encoded: str) -> bytes:
    """The bitstring of an encodedList (multibase base64url of GZIP); refuses a decompression bomb."""
    compressed = multibase_decode(encoded)
    decompressor = gzip.GzipFile(fileobj=io.BytesIO(compressed))
    data = decompressor.read(MAX_DECODED_BYTES + 1)
    if len(data) > MAX_DECODED_BYTES:
        raise ValueError("the status list is too large")
    return data
