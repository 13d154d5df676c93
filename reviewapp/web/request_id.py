"""A request id on every request, its response and every log line it causes.

A load balancer or proxy may already have given the request an id in
``X-Request-ID``; it is kept when it looks like an id, so one request can be
followed across the proxy's log and ours. Anything else (missing, too long,
odd characters that could forge log lines) is replaced by a fresh id.
"""

from __future__ import annotations

import logging
import re
import uuid
from contextvars import ContextVar

HEADER = "X-Request-ID"
# Letters, digits and a few separators: no spaces or newlines in log lines.
_SANE = re.compile(r"[A-Za-z0-9._:-]{8,128}")

_current: ContextVar[str | None] = ContextVar("request_id", default=None)


def new_id() -> str:
    return uuid.uuid4().hex


def accept_or_new(candidate: str | None) -> str:
    """The incoming id when it is sane, else a new one.

    ``"3f2a9c1e-req"`` is kept; ``"x\\nFAKE LOG LINE"`` and ``""`` are replaced.
    """
    if candidate and _SANE.fullmatch(candidate):
        return candidate
    return new_id()


def current() -> str | None:
    """The id of the request this thread is handling, if any."""
    return _current.get()


def bind(value: str | None) -> object:
    """Make ``value`` the current id; returns a token for :func:`unbind`."""
    return _current.set(value)


def unbind(token: object) -> None:
    _current.reset(token)  # type: ignore[arg-type]


class RequestIdFilter(logging.Filter):
    """Adds ``record.request_id`` ("-" outside a request) for the log format."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            # Django logs some 4xx/5xx responses after the middleware has
            # returned, but passes the request along in ``extra``.
            request = getattr(record, "request", None)
            record.request_id = getattr(request, "request_id", None) or _current.get() or "-"
        return True
