from __future__ import annotations

from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from app.web.i18n import TRANSLATIONS_DIR, load_translations, negotiate_language, parse_accept_language

PROJECT_ROOT = Path(__file__).resolve().parents[3]
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2)}


def test_accept_language_is_ordered_by_quality() -> None:
    assert parse_accept_language("en;q=0.5, ko-KR, fr;q=0.8, de;q=0") == ["ko-kr", "fr", "en"]
    assert parse_accept_language("") == []
    assert parse_accept_language("en;q=abc, ko") == ["ko"]


def test_cookie_wins_then_accept_language_then_english() -> None:
    assert negotiate_language("ko", "en-US") == "ko"
    assert negotiate_language(None, "fr, ko;q=0.9, en;q=0.8") == "ko"
    assert negotiate_language("xx", "fr-FR") == "en"
    assert negotiate_language(None, None) == "en"


def test_catalogs_compile_and_translate() -> None:
    catalogs = load_translations()
    assert catalogs["ko"].gettext("Sources") == "출처"
    assert catalogs["en"].gettext("Sources") == "Sources"


def extracted_messages() -> set[str]:
    found: set[str] = set()
    method_map = [("app/**.py", "python"), ("templates/**.html", "jinja2")]
    options = {"templates/**.html": {"extensions": "jinja2.ext.i18n"}}
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(PROJECT_ROOT), method_map, options, keywords=KEYWORDS
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


def test_every_interface_string_has_a_korean_translation() -> None:
    with (TRANSLATIONS_DIR / "ko" / "LC_MESSAGES" / "messages.po").open("rb") as po_file:
        catalog = read_po(po_file, locale="ko")
    translated = {
        (message.id[0] if isinstance(message.id, tuple) else message.id)
        for message in catalog
        if message.id and message.string and all(message.string) and not message.fuzzy
    }
    missing = sorted(extracted_messages() - translated)
    assert not missing, f"messages without Korean translation: {missing}"


def test_the_catalogs_hold_only_messages_the_interface_uses() -> None:
    """A message whose wording changed in a template leaves its old entry behind; translators would keep
    translating it, and the new wording would go untranslated."""
    used = extracted_messages()
    for language in ("en", "ko"):
        with (TRANSLATIONS_DIR / language / "LC_MESSAGES" / "messages.po").open("rb") as po_file:
            catalog = read_po(po_file, locale=language)
        stale = sorted(
            message_id
            for message in catalog
            if (message_id := message.id[0] if isinstance(message.id, tuple) else message.id) and message_id not in used
        )
        assert not stale, f"{language} catalog entries nothing uses: {stale}"
