"""The course's languages and the marker for translatable messages: one definition for every package.

Features speak English and codes; where a message is shown, the web layer translates it with the gettext
catalogs (`scripts/translations.py` extracts every string wrapped in `_` from app/ and templates/).
"""

from __future__ import annotations

LANGUAGES: tuple[str, ...] = ("en", "ko")
DEFAULT_LANGUAGE = "en"
LANGUAGE_NAMES = {"en": "English", "ko": "한국어"}


def _(message: str) -> str:
    """Marks `message` for extraction; it is translated where it is shown."""
    return message
