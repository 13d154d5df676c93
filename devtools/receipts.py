"""Receipt images for the demo's documents, drawn with Pillow.

Drawing one takes about two milliseconds: the lines every receipt prints are
drawn once into a template.
"""

from __future__ import annotations

import functools
import io
from typing import Any, Final

from django.utils.formats import number_format
from django.utils.translation import override


@functools.cache
def _receipt_font(image_font: Any, size: int) -> Any:
    # Pillow's built-in font has no å, ä or ö ("Operak□llaren"); DejaVu Sans
    # (on most Linux machines, and wherever Debian's chromium is installed) has.
    try:
        return image_font.truetype("DejaVuSans.ttf", size)
    except OSError:
        return image_font.load_default(size=size)


def kronor(amount: float | None) -> str:
    """An amount as a Swedish receipt prints it: ``1044.0`` -> ``1 044,00``."""
    if amount is None:
        return "-"
    with override("sv"):
        return number_format(amount, decimal_pos=2, use_l10n=True, force_grouping=True)


_RECEIPT_SIZE: Final = (360, 480)
_LINE_TOP, _LINE_STEP, _LINE_LEFT = 30, 34, 24


@functools.cache
def _receipt_template() -> Any:
    """The lines every receipt prints, drawn once (a text line is most of a receipt's drawing time)."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", _RECEIPT_SIZE, 255)
    draw = ImageDraw.Draw(image)
    small = _receipt_font(ImageFont, 14)
    for line, text in ((1, "Org.nr 556000-0000"), (4, "Varor/tjänster"), (5, "-" * 36), (9, "Tack för besöket!")):
        draw.text((_LINE_LEFT, _LINE_TOP + line * _LINE_STEP), text, fill=0, font=small)
    return image


def receipt_jpeg(*, supplier: str, date: str | None, total: float | None, vat: float | None, currency: str) -> bytes:
    """A plain generated receipt photo, so the demo's item pages show a document."""
    from PIL import ImageDraw, ImageFont

    image = _receipt_template().copy()
    draw = ImageDraw.Draw(image)
    font = _receipt_font(ImageFont, 18)
    small = _receipt_font(ImageFont, 14)
    lines = [
        (0, supplier, font),
        (2, f"Datum: {date or '-'}", small),
        (6, f"Totalt: {kronor(total)} {currency}", font),
        (7, f"varav moms: {kronor(vat)} {currency}", small),
    ]
    for line, text, face in lines:
        draw.text((_LINE_LEFT, _LINE_TOP + line * _LINE_STEP), text, fill=0, font=face)
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=70)
    return buffer.getvalue()
