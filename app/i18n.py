"""The course's languages and the marker for translatable messages: one definition for every package.

Features speak English and codes; where a message is shown, the web layer translates it with the gettext
catalogs (`scripts/translations.py` extracts every string wrapped in `_` from app/ and templates/).
"""

from __future__ import annotations

import gettext
from typing import Any

LANGUAGES: tuple[str, ...] = ("en", "ko")
DEFAULT_LANGUAGE = "en"
LANGUAGE_NAMES = {"en": "English", "ko": "한국어"}


def _(message: str) -> str:
    """Marks `message` for extraction; it is translated where it is shown."""
    return message


class Messages:
    """A feature's messages in one language (each feature's text class builds on this one)."""

    def __init__(self, translations: gettext.NullTranslations, language: str) -> None:
        self.translations = translations
        self.language = language

    def get(self, message: str, **params: Any) -> str:
        translated = self.translations.gettext(message)
        return translated % params if params else translated
