"""A sharper receipt file, checked before it is stored: what it really is, and that it is harmless.

- The type comes from the first bytes (JPEG, PNG or PDF, by ``reviewapp.core.files``),
  never from the name or the browser's content type; at most
  ``settings.RECEIPT_UPLOAD_MAX_BYTES``.
- Images: the declared size is read from the header and refused above
  ``MAX_IMAGE_PIXELS`` before anything is decoded (a 13 KB PNG can declare
  108 megapixels, 324 MB once decoded); then Pillow checks the file's
  structure with its ``DecompressionBombWarning`` counting as a refusal.
- PDFs: refused when they hold JavaScript or an action that runs by itself
  (``/JavaScript``, ``/JS``, ``/OpenAction``, ``/AA``, ``/Launch``, ``/XFA``),
  found by scanning every name in the file, hex escapes (``/J#53``) decoded,
  and inside its compressed object streams. A PDF whose object streams cannot
  be read (another filter, encrypted, damaged, too large once inflated) is
  refused too: what cannot be checked is not served back to a browser.
"""

from __future__ import annotations

import re
import warnings
import zlib
from dataclasses import dataclass
from typing import Final

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext as _

from reviewapp.core import files

MAX_IMAGE_PIXELS: Final = 40_000_000

# What a sharper receipt may be (``reviewapp.core.files`` tells from the first bytes).
RECEIPT_TYPES: Final = ("image/jpeg", "image/png", "application/pdf")

# Names that make a PDF run something: scripts, and actions on opening or on any event.
ACTIVE_PDF_NAMES: Final = frozenset({"JavaScript", "JS", "OpenAction", "AA", "Launch", "XFA"})
# Object streams are inflated to look inside; past this much output the file is refused, not read further.
MAX_INFLATED_BYTES: Final = 32 * 1024 * 1024

# A PDF name: a slash and regular characters up to the next white space or delimiter.
_PDF_NAME = re.compile(rb"/([^\x00\t\n\x0c\r ()<>\[\]{}/%]*)")
_NAME_ESCAPE = re.compile(rb"#([0-9A-Fa-f]{2})")
# "stream" as a keyword ("endstream" has no word boundary before its "stream").
_STREAM = re.compile(rb"\bstream(?:\r\n|\n|\r)")
_OBJECT = re.compile(rb"\d+\s+\d+\s+obj\b")
_FILTERS: Final = frozenset(
    {"FlateDecode", "Fl", "ASCIIHexDecode", "AHx", "ASCII85Decode", "A85", "LZWDecode", "LZW", "RunLengthDecode"}
    | {"RL", "CCITTFaxDecode", "JBIG2Decode", "DCTDecode", "JPXDecode", "Crypt"}
)


@dataclass(frozen=True, slots=True)
class CheckedFile:
    """An upload whose content was checked: its real type and the extension to store it under."""

    upload: UploadedFile
    mime_type: str

    @property
    def extension(self) -> str:
        return files.EXTENSIONS[self.mime_type]


class _Unreadable(Exception):
    """Part of the PDF cannot be inflated: it cannot be checked."""


def check_file(upload: UploadedFile) -> CheckedFile:
    """The upload's real type from its content; raises ``ValueError`` with the message."""
    limit = settings.RECEIPT_UPLOAD_MAX_BYTES
    size = upload.size or 0
    if size == 0:
        raise ValueError(_("The file is empty."))
    if size > limit:
        raise ValueError(
            _("The file is %(size)s MB; the limit is %(limit)s MB.")
            % {"size": f"{size / 1_048_576:.1f}", "limit": f"{limit / 1_048_576:.1f}"}
        )
    upload.seek(0)
    mime_type = files.mime_type_of(upload.read(files.HEAD_BYTES))
    upload.seek(0)
    if mime_type not in RECEIPT_TYPES:
        raise ValueError(_("Upload a JPEG, PNG or PDF file; this file is none of them."))
    if mime_type == "application/pdf":
        data = upload.read(limit + 1)
        upload.seek(0)
        check_pdf(data)
    else:
        _check_image(upload, mime_type)
    return CheckedFile(upload=upload, mime_type=mime_type)


class _PixelCap(ValueError):
    """The image's declared size is over ``MAX_IMAGE_PIXELS``."""


def _check_image(upload: UploadedFile, mime_type: str) -> None:
    from PIL import Image

    try:
        with warnings.catch_warnings():
            # The size first, from the header alone, to name it in the refusal.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(upload) as image:
                width, height = image.size
        if width * height > MAX_IMAGE_PIXELS:
            raise _too_large(width, height)
        upload.seek(0)
        with warnings.catch_warnings():
            # Pillow only warns between its own limit and twice it; here that is a refusal.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(upload) as image:
                image.verify()  # the file's structure; decodes no pixels
                found = Image.MIME.get(image.format or "")
    except _PixelCap:
        raise
    except (Image.DecompressionBombWarning, Image.DecompressionBombError):
        raise ValueError(_("The image declares more pixels than the app accepts; send a smaller image.")) from None
    except Exception:  # Pillow raises many types for a broken file; any means "unreadable".
        raise ValueError(_("The image is damaged or incomplete; it cannot be opened.")) from None
    finally:
        upload.seek(0)
    if found != mime_type:
        raise ValueError(_("Upload a JPEG, PNG or PDF file; this file is none of them."))


def _too_large(width: int, height: int) -> _PixelCap:
    return _PixelCap(
        _("The image is %(width)d × %(height)d pixels (%(mp)s megapixels); the limit is %(max)d megapixels.")
        % {
            "width": width,
            "height": height,
            "mp": f"{width * height / 1_000_000:.0f}",
            "max": MAX_IMAGE_PIXELS // 1_000_000,
        }
    )


def check_pdf(data: bytes) -> None:
    """Raise ``ValueError`` when the PDF runs something or cannot be checked."""
    try:
        found = active_pdf_names(data)
    except _Unreadable:
        raise ValueError(
            _(
                "This PDF has compressed parts the app cannot check for JavaScript. "
                "Save or print it again as a plain PDF, or upload a photo of the receipt."
            )
        ) from None
    if found:
        raise ValueError(
            _(
                "This PDF contains JavaScript or an action that runs when it is opened (%(names)s). "
                "Upload a PDF without them, or a photo of the receipt."
            )
            % {"names": ", ".join(f"/{name}" for name in sorted(found))}
        )


def active_pdf_names(data: bytes) -> set[str]:
    """Which of ``ACTIVE_PDF_NAMES`` occur in the PDF, its object streams included; ``_Unreadable`` if unsure."""
    found = _names_in(data)
    for inflated in _object_streams(data):
        found |= _names_in(inflated)
    return found


# A page object's type (``/Type /Page``), not the page tree's ``/Pages``.
_PAGE_TYPE = re.compile(rb"/Type\s*/Page(?![A-Za-z0-9#])")


def pdf_page_count(data: bytes) -> int | None:
    """How many pages the PDF has, or None when it cannot be told (accounted's ``countPdfPages`` answers null then).

    accounted counts with pdf-lib's page tree; here the page objects are
    counted, in the file and inside its object streams. For the files
    ``check_file`` accepts the two agree; a file with pages left over from an
    incremental update may count more here.
    """
    try:
        pages = len(_PAGE_TYPE.findall(data)) + sum(len(_PAGE_TYPE.findall(s)) for s in _object_streams(data))
    except _Unreadable:
        return None
    return pages or None


def _object_streams(data: bytes) -> list[bytes]:
    """The PDF's compressed object streams, inflated; ``_Unreadable`` when one cannot be."""
    streams: list[bytes] = []
    budget = MAX_INFLATED_BYTES
    for match in _STREAM.finditer(data):
        start = match.end()
        # The stream's dictionary: from the "N 0 obj" before it to the keyword.
        head_start = max(0, match.start() - 4096)
        head = data[head_start : match.start()]
        objects = list(_OBJECT.finditer(head))
        if objects:
            head = head[objects[-1].end() :]
        names = [_decoded(raw) for raw in _PDF_NAME.findall(head)]
        if "ObjStm" not in names:
            continue
        end = data.find(b"endstream", start)
        filters = [name for name in names if name in _FILTERS]
        if not filters:
            continue  # not compressed: the scan of the whole file read it
        # One Flate filter without a predictor is what writers use; anything else is not read here.
        if end < 0 or filters not in (["FlateDecode"], ["Fl"]) or "Predictor" in names:
            raise _Unreadable
        inflated = _inflate(data[start:end], budget)
        budget -= len(inflated)
        streams.append(inflated)
    return streams


def _inflate(raw: bytes, budget: int) -> bytes:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(raw, budget)
    except zlib.error:
        raise _Unreadable from None
    if inflater.unconsumed_tail:
        raise _Unreadable  # more than the budget once inflated
    return out


def _decoded(raw: bytes) -> str:
    return _NAME_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), raw).decode("latin-1")


def _names_in(data: bytes) -> set[str]:
    return {name for raw in _PDF_NAME.findall(data) if (name := _decoded(raw)) in ACTIVE_PDF_NAMES}
