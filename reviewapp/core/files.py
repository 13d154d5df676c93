"""What a file really is, from its first bytes: never its name or the type a browser or a row claims.

One table for every place that must know: the receipt file served back to a
browser (only an image or a PDF is shown inline, anything else is a
download, so an uploaded HTML or SVG file never runs in our origin) and the
sharper file uploaded to settle a resend question (JPEG, PNG or PDF only)::

    mime_type_of(b"%PDF-1.7 ...")  # "application/pdf"
    mime_type_of(b"<svg ...")      # None: not a type we recognise
"""

from __future__ import annotations

from typing import Final

# How many leading bytes ``mime_type_of`` needs.
HEAD_BYTES: Final = 16

SIGNATURES: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)

# The extension a file of each type is stored under.
EXTENSIONS: Final = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "application/pdf": "pdf",
}


def mime_type_of(head: bytes) -> str | None:
    """The type the file's first ``HEAD_BYTES`` bytes show, or None when they show none we know."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((mime_type for signature, mime_type in SIGNATURES if head.startswith(signature)), None)
