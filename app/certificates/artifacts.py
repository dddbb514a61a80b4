"""The files made from a certificate: the stored bytes as they are (JSON, JWS), and the derived ones (the
printable PDF with its QR code, the Open Graph preview image); and the achievement's badge art, the same for
every certificate: an SVG kept in this package and its PNG, drawn from it once by CairoSVG (wallets and
LinkedIn take PNG, OB 3.0 allows either).

The derived files depend on what the page shows (a revoked certificate's PDF says so), so they are remembered
per certificate view, which is frozen and hashable by exactly that, and made in a thread: a PDF takes most of a
second (fontTools subsets the fonts).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from anyio import to_thread

from app.certificates.credential import Issuer
from app.certificates.errors import ArtifactUnavailableError
from app.certificates.lookup import LookupService
from app.certificates.messages import (
    PDF_AWARDED_TO,
    PDF_COMPLETED,
    PDF_ID,
    PDF_ISSUED,
    PDF_KEY,
    PDF_REVOKED,
    PDF_SCAN,
    PDF_TITLE,
    PDF_VERIFY,
    PREVIEW_INVALID,
    PREVIEW_REVOKED,
    PREVIEW_VERIFIED,
    CertificateText,
)
from app.certificates.pdf import Fonts, Preview, PrintedCertificate, render_pdf, render_preview
from app.certificates.qr import matrix
from app.certificates.readmodels import CertificateView
from app.remembered import Remembered

ARTIFACTS_REMEMBERED = 64
Kind = Literal["json", "jwt", "pdf", "png"]
BADGE_SVG = Path(__file__).with_name("badge.svg")
BADGE_PX = 600  # the PNG's width and height: OB 3.0 hosts and LinkedIn show badges at 300-400 px
PREVIEW_BADGE_PX = 400


class ArtifactService:
    def __init__(
        self,
        lookup: LookupService,
        issuer: Issuer,
        text: Callable[[str], CertificateText],
        fonts: Fonts | None,
    ) -> None:
        self.lookup = lookup
        self.issuer = issuer
        self.text = text
        self.fonts = fonts
        self._made: Remembered[tuple[str, CertificateView], bytes] = Remembered(ARTIFACTS_REMEMBERED)
        self.badge_svg = BADGE_SVG.read_bytes()
        self._badges: dict[int, bytes] = {}
        self._drawing = threading.Lock()

    async def badge(self, extension: str) -> bytes:
        """The badge art: "svg" as kept, "png" drawn from it (once)."""
        if extension == "svg":
            return self.badge_svg
        return await to_thread.run_sync(self._badge_png, BADGE_PX)

    def _badge_png(self, size_px: int) -> bytes:
        with self._drawing:
            drawn = self._badges.get(size_px)
            if drawn is None:
                try:  # CairoSVG loads libcairo when imported: a machine without it still serves everything else
                    import cairosvg
                except OSError:
                    raise ArtifactUnavailableError("png") from None
                drawn = cairosvg.svg2png(bytestring=self.badge_svg, output_width=size_px, output_height=size_px)
                self._badges[size_px] = drawn
            return drawn

    async def artifact(self, client: str, raw_id: str, kind: Kind | str) -> tuple[str, bytes]:
        """The stored bytes ("json", "jwt") or a derived file ("pdf", "png"), with the id they belong to."""
        row, view = await self.lookup.stored(client, raw_id)
        if kind == "json":
            return row.id, row.credential.encode("utf-8")
        if kind == "jwt":
            return row.id, row.jws.encode("ascii")
        key = (kind, view)
        made = self._made.get(key)
        if made is None:
            fonts = self.fonts
            if fonts is None:
                raise ArtifactUnavailableError(kind)
            if kind == "pdf":
                made = await to_thread.run_sync(self._pdf, view, row.qr_payload, fonts)
            else:
                made = await to_thread.run_sync(self._preview, view, fonts)
            self._made.put(key, made)
        return row.id, made

    def _pdf(self, view: CertificateView, qr_payload: str, fonts: Fonts) -> bytes:
        text = self.text(view.language)
        revoked = None
        if view.revoked_at is not None:
            revoked = text.get(
                PDF_REVOKED, date=view.revoked_at.date().isoformat(), reason=text.reason(view.revocation_reason)
            )
        page = PrintedCertificate(
            issuer=view.issuer_name or self.issuer.name,
            title=text.get(PDF_TITLE),
            awarded_to=text.get(PDF_AWARDED_TO),
            name=view.name or "",
            completed=text.get(PDF_COMPLETED),
            course=view.course or "",
            issued_label=text.get(PDF_ISSUED),
            issued=view.issued_at.date().isoformat() if view.issued_at else "",
            id_label=text.get(PDF_ID),
            certificate_id=view.id,
            verify_label=text.get(PDF_VERIFY),
            verify_url=view.url,
            key_label=text.get(PDF_KEY),
            key=view.key.fingerprint if view.key else "",
            scan=text.get(PDF_SCAN),
            language=view.language,
            revoked=revoked,
        )
        return render_pdf(page, matrix(f"{view.url}#{qr_payload}"), fonts)

    def _preview(self, view: CertificateView, fonts: Fonts) -> bytes:
        text = self.text(view.language)
        label = {"valid": PREVIEW_VERIFIED, "revoked": PREVIEW_REVOKED}.get(view.state, PREVIEW_INVALID)
        try:
            badge: bytes | None = self._badge_png(PREVIEW_BADGE_PX)
        except ArtifactUnavailableError:
            badge = None
        preview = Preview(
            text.get(label),
            view.name or "",
            view.course or "",
            self.issuer.name,
            footer=view.url,
            valid=view.state == "valid",
            badge=badge,
        )
        return render_preview(preview, fonts)
