"""Link tokens: 256 random bits, base64url (43 characters); only their SHA-256 is stored."""

from __future__ import annotations

import hashlib
import re
import secrets

TOKEN_BYTES = 32
_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")


def new_token() -> tuple[str, str]:
    """A token and the hash that is stored for it."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, token_hash(token)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def parse_token(text: str) -> str | None:
    """The hash to look up, or None for text that cannot be a token (it is answered like an unknown one)."""
    return token_hash(text) if _TOKEN.fullmatch(text) else None
