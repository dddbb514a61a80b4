"""The QR code printed on a certificate: the verification URL, and in its fragment a compact signed summary, so
that the paper can be checked offline against the issuer's public key.

Fragment: base64url(JCS({"v": 1, "i": id, "n": name, "c": course, "d": date, "k": key id})) "." base64url(Ed25519
signature over the first part's ASCII). A fragment never reaches a server, which is the point: the summary is
readable from the picture alone; the verification page reads it (script) and has the server check it against the
same keys as the credential.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import escape, quoteattr

import segno
from cryptography.exceptions import InvalidSignature

from app.certificates.encoding import EncodingError, b64url_decode, b64url_encode
from app.certificates.keys import PublicKey, SigningKey
from app.certificates.signing import canonical

QR_VERSION = 1
MAX_FRAGMENT_LENGTH = 2048
QUIET_ZONE = 4  # modules of white around the symbol (ISO/IEC 18004)

Matrix = tuple[tuple[bool, ...], ...]


@dataclass(frozen=True, slots=True)
class QrSummary:
    certificate_id: str
    name: str
    course: str
    date: str  # YYYY-MM-DD
    key_id: str

    def fields(self) -> dict[str, object]:
        return {
            "v": QR_VERSION,
            "i": self.certificate_id,
            "n": self.name,
            "c": self.course,
            "d": self.date,
            "k": self.key_id,
        }


def sign_summary(summary: QrSummary, key: SigningKey) -> str:
    payload = b64url_encode(canonical(summary.fields()))
    return f"{payload}.{b64url_encode(key.private.sign(payload.encode('ascii')))}"


@dataclass(frozen=True, slots=True)
class QrCheck:
    """`problem`: "format", "unknown_key" or "signature"; `summary` is what the fragment says (when readable)."""

    valid: bool
    summary: QrSummary | None
    problem: str | None = None


def verify_fragment(fragment: str, resolve: Callable[[str], PublicKey | None]) -> QrCheck:
    text = fragment.removeprefix("#")
    if len(text) > MAX_FRAGMENT_LENGTH or text.count(".") != 1:
        return QrCheck(False, None, "format")
    payload, _, signature_text = text.partition(".")
    try:
        fields = json.loads(b64url_decode(payload).decode("utf-8"))
        signature = b64url_decode(signature_text)
    except (EncodingError, UnicodeDecodeError, ValueError):
        return QrCheck(False, None, "format")
    if not isinstance(fields, dict) or fields.get("v") != QR_VERSION:
        return QrCheck(False, None, "format")
    values = [fields.get(name) for name in ("i", "n", "c", "d", "k")]
    if not all(isinstance(value, str) for value in values):
        return QrCheck(False, None, "format")
    summary = QrSummary(*(str(value) for value in values))
    key = resolve(summary.key_id)
    if key is None:
        return QrCheck(False, summary, "unknown_key")
    try:
        key.key.verify(signature, payload.encode("ascii"))
    except InvalidSignature:
        return QrCheck(False, summary, "signature")
    return QrCheck(True, summary)


@lru_cache(maxsize=256)  # pure; segno takes tens of milliseconds for a certificate's URL, on every page view
def matrix(text: str) -> Matrix:
    """The QR symbol's modules (True = dark), without the quiet zone; error correction M or better."""
    code = segno.make(text, error="m", micro=False)
    return tuple(tuple(bool(module) for module in row) for row in code.matrix)


@lru_cache(maxsize=256)
def svg(text: str, title: str, element_id: str) -> str:
    """The QR code as inline SVG: one path, dark on white whatever the page's colour scheme; `title` (escaped)
    is its accessible name."""
    modules = matrix(text)
    size = len(modules) + 2 * QUIET_ZONE
    steps = [
        f"M{start + QUIET_ZONE} {y + QUIET_ZONE}h{length}v1h-{length}z"
        for y, row in enumerate(modules)
        for start, length in _runs(row)
    ]
    title_id = f"{element_id}-title"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" id={quoteattr(element_id)} viewBox="0 0 {size} {size}" '
        f'role="img" aria-labelledby={quoteattr(title_id)} shape-rendering="crispEdges">'
        f"<title id={quoteattr(title_id)}>{escape(title)}</title>"
        f'<rect width="{size}" height="{size}" fill="#fff"/>'
        f'<path fill="#000" d="{"".join(steps)}"/></svg>'
    )


def _runs(row: tuple[bool, ...]) -> list[tuple[int, int]]:
    """(start, length) of each run of dark modules: one rectangle per run keeps the inline SVG a third as long."""
    runs: list[tuple[int, int]] = []
    start = None
    for column, dark in enumerate((*row, False)):
        if dark and start is None:
            start = column
        elif not dark and start is not None:
            runs.append((start, column - start))
            start = None
    return runs
