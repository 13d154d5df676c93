"""How large a request body each view accepts, checked before anything reads it.

Django's own limit (DATA_UPLOAD_MAX_MEMORY_SIZE) counts neither file parts
nor a body nobody parses, and gunicorn has none: a 30 MB multipart post to
the login form was read whole and answered 200. ``BodyLimitMiddleware``
(early in MIDDLEWARE, before the session and CSRF) answers 413 instead:

- with a ``Content-Length`` over the limit, without reading a byte;
- without one (``Transfer-Encoding: chunked``), by reading the body through
  a counter and stopping one byte past the limit. A body within the limit
  is handed to Django, which otherwise ignores a body without a length.

The limit is REQUEST_BODY_MAX_BYTES (1 MiB) everywhere, plus
RECEIPT_UPLOAD_MAX_BYTES on the answer form and its live preview, the only
forms that carry a receipt file (the answer API takes no files). nginx in
front (docs/deploy/nginx.conf) has caps just above these.
"""

from __future__ import annotations

import io
from typing import IO, Final

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream
from django.http import HttpRequest
from django.urls import Resolver404, resolve

# URL names of the views that take a receipt upload.
UPLOAD_VIEWS: Final = frozenset({"item_answer", "item_answer_preview"})
_PIECE: Final = 64 * 1024


class BodyTooLarge(Exception):
    pass


def limit_for(path_info: str) -> int:
    """The largest body, in bytes, the view at ``path_info`` accepts."""
    try:
        name = resolve(path_info).url_name
    except Resolver404:
        name = None
    general: int = settings.REQUEST_BODY_MAX_BYTES
    return general + settings.RECEIPT_UPLOAD_MAX_BYTES if name in UPLOAD_VIEWS else general


def declared_length(request: HttpRequest) -> int | None:
    """The ``Content-Length`` as a number, or None without a usable one."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None


def is_streamed(request: HttpRequest) -> bool:
    """A body sent without a length: ``Transfer-Encoding: chunked``."""
    return "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()


def read_capped(stream: IO[bytes], limit: int) -> bytes:
    """The whole of ``stream``, or BodyTooLarge as soon as more than ``limit`` bytes came."""
    pieces: list[bytes] = []
    received = 0
    while True:
        piece = stream.read(min(_PIECE, limit + 1 - received))
        if not piece:
            return b"".join(pieces)
        received += len(piece)
        if received > limit:
            raise BodyTooLarge
        pieces.append(piece)


def hand_over(request: HttpRequest, body: bytes) -> None:
    """Give Django a streamed body it has read for it, as if it had come with its length.

    Django sized its stream from CONTENT_LENGTH when it built the request
    (WSGIRequest.__init__), so without a length it would read nothing.
    """
    request.META["CONTENT_LENGTH"] = str(len(body))
    request._stream = LimitedStream(io.BytesIO(body), len(body))  # type: ignore[assignment]
