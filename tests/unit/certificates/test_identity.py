"""What may be printed and how ids are read: names (NFC, 1-100 characters, any script, no controls or bidi
overrides) and Crockford base32 ids (128 bits, any case, the same refusal for every malformed one)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.certificates.ids import ID_LENGTH, encode, new_certificate_id, normalise
from app.certificates.names import BLANKS, MAX_NAME_LENGTH, NameRejectedError, normalise_name


@pytest.mark.parametrize(
    ("raw", "printed"),
    [
        ("김민준", "김민준"),
        ("  Ada   Lovelace ", "Ada Lovelace"),
        ("e\u0301cole", "\u00e9cole"),  # NFC: one code point, as signed
        ("Siobhán O'Brien-Ní Dhónaill", "Siobhán O'Brien-Ní Dhónaill"),
        ("محمد", "محمد"),
        ("田中 太郎", "田中 太郎"),
        ("Ἀριστοτέλης", "Ἀριστοτέλης"),
        ("می\u200cخواهم", "می\u200cخواهم"),  # the zero-width non-joiner Persian needs stays
        ("<script>alert(1)</script>", "<script>alert(1)</script>"),  # printable; every output escapes it
        ("x" * MAX_NAME_LENGTH, "x" * MAX_NAME_LENGTH),
    ],
)
def test_names_of_any_script_are_printed_in_nfc(raw: str, printed: str) -> None:
    assert normalise_name(raw) == printed


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * (MAX_NAME_LENGTH + 1), "too_long"),
        ("1234", "no_letter"),
        ("Ada\x00", "control"),
        ("Ada\nLovelace", "control"),
        ("Ada\u2028Lovelace", "control"),
        ("Ada\u202eecalevoL", "bidi"),
        ("\u2066Ada\u2069", "bidi"),
        ("Ada\u200fL", "bidi"),
        ("Ada\u00adL", "invisible"),
        ("Ada\ue000", "invisible"),
        ("Ada\U000e0001", "invisible"),
        ("\u3164", "blank"),  # a Hangul filler, a letter to Unicode, printed as nothing
        ("Ada\u3164Lovelace", "blank"),
        ("\u115f\u1160", "blank"),
        ("A\u034fda", "blank"),
        ("Ada\ufe0f", "blank"),
        ("Ada\U000e0100", "blank"),
        ("\u2800Ada", "blank"),
        ("Ada\uffa0", "blank"),
    ],
)
def test_names_that_could_mislead_or_break_a_layout_are_refused(raw: str, code: str) -> None:
    with pytest.raises(NameRejectedError) as refused:
        normalise_name(raw)
    assert refused.value.code == code


@given(st.text(max_size=150))
def test_a_printed_name_is_nfc_bounded_and_has_a_letter(raw: str) -> None:
    try:
        name = normalise_name(raw)
    except NameRejectedError:
        return
    assert name == unicodedata.normalize("NFC", name) == name.strip()
    assert 1 <= len(name) <= MAX_NAME_LENGTH
    assert any(unicodedata.category(character).startswith("L") for character in name)
    assert not any(unicodedata.category(character) == "Cc" for character in name)
    assert not BLANKS & set(name)


def test_ids_are_128_random_bits_in_crockford_base32() -> None:
    ids = {new_certificate_id() for _ in range(500)}
    assert len(ids) == 500
    for certificate_id in ids:
        assert len(certificate_id) == ID_LENGTH
        assert set(certificate_id) <= set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        assert certificate_id[0] in "01234567"
    assert encode(0) == "0" * ID_LENGTH
    assert encode(2**128 - 1) == "7" + "Z" * (ID_LENGTH - 1)


def test_ids_are_read_case_insensitively_and_as_crockford_reads_them() -> None:
    certificate_id = new_certificate_id()
    assert normalise(certificate_id.lower()) == certificate_id
    assert normalise(f"{certificate_id[:13]}-{certificate_id[13:]}") == certificate_id
    assert normalise("O" * ID_LENGTH) == "0" * ID_LENGTH
    assert normalise("i" + "L" * (ID_LENGTH - 1)) == "1" * ID_LENGTH


@pytest.mark.parametrize(
    "raw",
    ["", "short", "8" + "0" * (ID_LENGTH - 1), "U" * ID_LENGTH, "0" * (ID_LENGTH + 1), "０" * ID_LENGTH, "0" * 100],
)
def test_malformed_ids_are_not_ids(raw: str) -> None:
    assert normalise(raw) is None
