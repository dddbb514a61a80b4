"""The printable certificate: one A4 landscape page made with fpdf2, and the Open Graph preview image (Pillow).

Names of any script must print correctly, so the text is set in TrueType fonts that Debian ships (fonts-nanum:
Hangul, common Hanja, kana, Greek and Cyrillic; fonts-dejavu-core as the fallback for the rest of Latin, Arabic,
Hebrew ...), embedded as subsets. fpdf2 writes each string as glyph ids of the embedded font, never as PDF
syntax, so a name such as ") Tj (" is text and nothing else; Pillow draws pixels. The QR code is drawn as
filled squares, crisp at any zoom and in print.

Making a PDF takes most of a second (fontTools parses and subsets the fonts), so the service caches the bytes per
certificate state and makes them in a thread.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from pathlib import Path

from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

from app.certificates.qr import QUIET_ZONE, Matrix

FONT_DIRS = (Path("/usr/share/fonts/truetype/nanum"), Path("/usr/share/fonts/truetype/dejavu"))
REGULAR = "NanumGothic.ttf"
BOLD = "NanumGothicBold.ttf"
SERIF_BOLD = "NanumMyeongjoBold.ttf"
FALLBACK = "DejaVuSans.ttf"
PREVIEW_SIZE = (1200, 630)

# fontTools logs every table it cannot subset (at WARNING, per PDF); those tables are hinting data nobody needs.
logging.getLogger("fontTools.subset").setLevel(logging.ERROR)


@dataclass(frozen=True, slots=True)
class Fonts:
    regular: Path
    bold: Path
    title: Path
    fallback: Path | None

    @classmethod
    def find(cls, directories: tuple[Path, ...] = FONT_DIRS) -> Fonts | None:
        """The installed fonts, or None when the main ones are missing (Debian: apt-get install fonts-nanum)."""

        def first(name: str) -> Path | None:
            return next((directory / name for directory in directories if (directory / name).is_file()), None)

        regular, bold, title = first(REGULAR), first(BOLD), first(SERIF_BOLD)
        if regular is None or bold is None:
            return None
        return cls(regular, bold, title or bold, first(FALLBACK))


@dataclass(frozen=True, slots=True)
class PrintedCertificate:
    """Every text of the page, already in the certificate's language."""

    issuer: str
    title: str
    awarded_to: str
    name: str
    completed: str
    course: str
    issued_label: str
    issued: str
    id_label: str
    certificate_id: str
    verify_label: str
    verify_url: str
    key_label: str
    key: str
    scan: str
    language: str
    revoked: str | None = None


def render_pdf(page: PrintedCertificate, qr: Matrix, fonts: Fonts) -> bytes:
    pdf = FPDF(orientation="L", unit="mm", format="A4")
    pdf.set_creator("Interconnects")
    pdf.set_title(f"{page.title}: {page.name}")
    pdf.set_author(page.issuer)
    pdf.set_lang(page.language)
    pdf.set_auto_page_break(False)
    pdf.add_font("body", "", str(fonts.regular))
    pdf.add_font("body", "B", str(fonts.bold))
    pdf.add_font("title", "", str(fonts.title))
    if fonts.fallback is not None:
        pdf.add_font("fallback", "", str(fonts.fallback))
        pdf.set_fallback_fonts(["fallback"], exact_match=False)
    pdf.add_page()
    width, height = pdf.w, pdf.h

    pdf.set_draw_color(11, 107, 85)
    pdf.set_line_width(1.2)
    pdf.rect(10, 10, width - 20, height - 20)
    pdf.set_line_width(0.3)
    pdf.rect(14, 14, width - 28, height - 28)

    def centred(text: str, y: float, family: str, size: float, style: str = "", grey: int = 30) -> None:
        pdf.set_font(family, style, size)
        pdf.set_text_color(grey, grey, grey)
        pdf.set_xy(24, y)
        pdf.multi_cell(width - 48, size * 0.45, text, align="C")

    centred(page.issuer.upper(), 26, "body", 12, "B", 90)
    centred(page.title, 38, "title", 34)
    centred(page.awarded_to, 64, "body", 14, "", 80)
    name_size = 34 if len(page.name) <= 32 else 26 if len(page.name) <= 56 else 18
    pdf.set_text_color(11, 80, 63)
    centred(page.name, 76, "body", name_size, "B", 20)
    pdf.set_draw_color(180, 190, 185)
    pdf.line(60, 100, width - 60, 100)
    centred(page.completed, 106, "body", 14, "", 80)
    centred(page.course, 116, "body", 18, "B", 30)

    details = [
        (page.issued_label, page.issued),
        (page.id_label, page.certificate_id),
        (page.verify_label, page.verify_url),
        (page.key_label, page.key),
    ]
    y = 146.0
    for label, value in details:
        pdf.set_xy(28, y)
        pdf.set_font("body", "B", 9)
        pdf.set_text_color(90, 90, 90)
        pdf.cell(34, 5, label)
        pdf.set_font("body", "", 9)
        pdf.set_text_color(30, 30, 30)
        pdf.multi_cell(150, 5, value)
        y += 8.5

    modules = len(qr) + 2 * QUIET_ZONE
    side = 46.0
    cell = side / modules
    left, top = width - 28 - side, height - 30 - side
    pdf.set_fill_color(255, 255, 255)
    pdf.rect(left, top, side, side, style="F")
    pdf.set_fill_color(0, 0, 0)
    for row_index, row in enumerate(qr):
        run_start = None
        for column, dark in enumerate((*row, False)):
            if dark and run_start is None:
                run_start = column
            elif not dark and run_start is not None:  # one rectangle per run of dark modules
                x = left + (run_start + QUIET_ZONE) * cell
                pdf.rect(x, top + (row_index + QUIET_ZONE) * cell, (column - run_start) * cell, cell, style="F")
                run_start = None
    pdf.set_font("body", "", 8)
    pdf.set_text_color(90, 90, 90)
    pdf.set_xy(left, top + side + 1)
    pdf.cell(side, 4, page.scan, align="C")

    if page.revoked is not None:
        pdf.set_text_color(180, 30, 30)
        pdf.set_font("body", "B", 16)
        pdf.set_xy(24, 130)
        pdf.multi_cell(width - 48, 7, page.revoked, align="C")
    return bytes(pdf.output())


@dataclass(frozen=True, slots=True)
class Preview:
    label: str
    name: str
    course: str
    issuer: str


def render_preview(preview: Preview, fonts: Fonts) -> bytes:
    """The Open Graph image (1200 x 630 PNG) that link previews show."""
    image = Image.new("RGB", PREVIEW_SIZE, (251, 251, 248))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, PREVIEW_SIZE[0], 18), fill=(11, 107, 85))
    draw.rectangle((24, 42, PREVIEW_SIZE[0] - 24, PREVIEW_SIZE[1] - 24), outline=(11, 107, 85), width=4)

    def font(path: Path, size: int) -> ImageFont.FreeTypeFont:
        return ImageFont.truetype(str(path), size)

    def fitted(text: str, path: Path, size: int, width: int) -> ImageFont.FreeTypeFont:
        chosen = font(path, size)
        while size > 24 and draw.textlength(text, font=chosen) > width:
            size -= 4
            chosen = font(path, size)
        return chosen

    usable = PREVIEW_SIZE[0] - 160
    draw.text((80, 90), preview.issuer.upper(), font=font(fonts.bold, 30), fill=(77, 87, 82))
    draw.text((80, 150), preview.label, font=font(fonts.regular, 40), fill=(11, 107, 85))
    draw.text((80, 240), preview.name, font=fitted(preview.name, fonts.bold, 84, usable), fill=(27, 31, 29))
    draw.text((80, 400), preview.course, font=fitted(preview.course, fonts.regular, 40, usable), fill=(77, 87, 82))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
