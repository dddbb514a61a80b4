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
    label: str  # the verdict: "Verified certificate", "Revoked certificate", ...
    name: str
    course: str
    issuer: str
    footer: str  # the verification address
    valid: bool  # the verdict's colour, and the badge in colour or grey
    badge: bytes | None = None  # the badge art as PNG (square), drawn at the right


INK = (27, 31, 29)
MUTED = (77, 87, 82)
BLUE = (31, 95, 191)
VIOLET = (106, 63, 181)
RED = (161, 38, 27)
PAPER = (251, 251, 248)


def render_preview(preview: Preview, fonts: Fonts) -> bytes:
    """The Open Graph image (1200 x 630 PNG) that link previews show, filled edge to edge: the badge at the right,
    the verdict, the name (as large as fits), the course (wrapped) and the verification address at the left. Link
    previews crop to about 1.91:1, which is this size exactly, so nothing that matters sits near an edge."""
    width, height = PREVIEW_SIZE
    image = Image.new("RGB", PREVIEW_SIZE, PAPER)
    draw = ImageDraw.Draw(image)
    for x in range(width):  # the band at the top: blue to violet, like the badge's ring
        mix = x / (width - 1)
        colour = tuple(round(a + (b - a) * mix) for a, b in zip(BLUE, VIOLET, strict=True))
        draw.line((x, 0, x, 24), fill=colour)
    draw.rectangle((0, height - 96, width, height), fill=(238, 241, 247))

    def font(path: Path, size: int) -> ImageFont.FreeTypeFont:
        return ImageFont.truetype(str(path), size)

    def fitted(text: str, path: Path, size: int, room: int, smallest: int = 28) -> ImageFont.FreeTypeFont:
        chosen = font(path, size)
        while size > smallest and draw.textlength(text, font=chosen) > room:
            size -= 4
            chosen = font(path, size)
        return chosen

    def lines_of(text: str, chosen: ImageFont.FreeTypeFont, room: int) -> list[str]:
        """`text` in lines of at most `room` pixels: broken at spaces, and a word wider than that between
        characters."""
        lines: list[str] = []
        current = ""
        for word in text.split(" "):
            trial = f"{current} {word}" if current else word
            if draw.textlength(trial, font=chosen) <= room:
                current = trial
                continue
            if current:
                lines.append(current)
            while len(word) > 1 and draw.textlength(word, font=chosen) > room:
                cut = max(1, *(n for n in range(1, len(word)) if draw.textlength(word[:n], font=chosen) <= room))
                lines.append(word[:cut])
                word = word[cut:]
            current = word
        return [*lines, current] if current else lines

    def broken(text: str, chosen: ImageFont.FreeTypeFont, room: int, limit: int) -> list[str]:
        """At most `limit` lines; the last one ends in an ellipsis when the text goes on."""
        lines = lines_of(text, chosen, room)
        if len(lines) <= limit:
            return lines
        last = lines[limit - 1]
        while last and draw.textlength(f"{last}…", font=chosen) > room:
            last = last[:-1]
        return [*lines[: limit - 1], f"{last.rstrip()}…"]

    left, badge_size = 72, 400
    badge_left = width - badge_size - 64
    room = badge_left - left - 48
    if preview.badge is not None:
        badge = Image.open(io.BytesIO(preview.badge)).convert("RGBA").resize((badge_size, badge_size))
        if not preview.valid:
            grey = badge.convert("LA").convert("RGBA")
            grey.putalpha(badge.getchannel("A").point(lambda alpha: alpha // 2))
            badge = grey
        image.paste(badge, (badge_left, (height - 96 - badge_size) // 2 + 12), badge)
    draw.text((left, 64), preview.issuer.upper(), font=font(fonts.bold, 30), fill=MUTED)
    draw.text((left, 112), preview.label, font=font(fonts.bold, 44), fill=VIOLET if preview.valid else RED)
    # The name as large as fits on one line down to 56 px, else on two lines down to 28 px, else on three.
    name_font = fitted(preview.name, fonts.bold, 104, room, smallest=56)
    name_lines = [preview.name]
    if draw.textlength(preview.name, font=name_font) > room:
        for size in range(72, 27, -4):
            name_font = font(fonts.bold, size)
            name_lines = lines_of(preview.name, name_font, room)
            if len(name_lines) <= 2:
                break
        name_lines = broken(preview.name, name_font, room, 3)
    y = 190
    for line in name_lines:
        draw.text((left, y), line, font=name_font, fill=INK)
        y += int(name_font.size * 1.25)
    y += 24
    course_font = font(fonts.regular, 40 if len(name_lines) == 1 else 34)
    for line in broken(preview.course, course_font, room, 3 if len(name_lines) == 1 else 2):
        draw.text((left, y), line, font=course_font, fill=MUTED)
        y += int(course_font.size * 1.3)
    draw.text(
        (left, height - 66), preview.footer, font=fitted(preview.footer, fonts.regular, 30, width - 2 * left), fill=BLUE
    )
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
