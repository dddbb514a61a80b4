"""The Bitstring Status List: bit order, size, the encoding a verifier decodes, random indexes."""

from __future__ import annotations

import gzip

import pytest

from app.certificates.credential import encode_bitstring
from app.certificates.encoding import b64url_decode
from app.certificates.statuslist import LIST_SIZE, decode_encoded_list, empty_bits, free_index, is_set, with_bit


def test_a_list_has_at_least_131072_entries_and_index_0_is_the_first_bytes_high_bit() -> None:
    bits = empty_bits()
    assert len(bits) * 8 == LIST_SIZE >= 131_072
    set_first = with_bit(bits, 0)
    assert set_first[0] == 0x80
    assert with_bit(bits, 9)[1] == 0x40
    assert is_set(set_first, 0)
    assert not is_set(set_first, 1)
    assert not is_set(with_bit(set_first, 0, False), 0)
    with pytest.raises(ValueError, match="at least"):
        empty_bits(1024)
    with pytest.raises(IndexError):
        with_bit(bits, LIST_SIZE)


def test_the_encoded_list_is_multibase_base64url_of_gzip() -> None:
    bits = with_bit(with_bit(empty_bits(), 7), LIST_SIZE - 1)
    encoded = encode_bitstring(bits)
    assert encoded.startswith("u")
    assert gzip.decompress(b64url_decode(encoded[1:])) == bits
    assert decode_encoded_list(encoded) == bits
    assert len(encoded) < 200  # an almost empty list compresses to almost nothing


def test_a_decompression_bomb_is_refused() -> None:
    bomb = "u" + encode_bitstring(bytes(32 * 1024 * 1024))[1:]
    with pytest.raises(ValueError, match="too large"):
        decode_encoded_list(bomb)


def test_free_indexes_are_random_and_skip_taken_ones() -> None:
    taken = set(range(0, LIST_SIZE, 2))
    drawn = [free_index(lambda index: index in taken) for _ in range(200)]
    assert all(index % 2 == 1 for index in drawn)
    assert len(set(drawn)) > 190
