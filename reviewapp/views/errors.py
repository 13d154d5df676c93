"""The 500 page: plain, no traceback, with the request id to quote to support.

Django's default 500 view renders the template without any context, so the
page could not show the request id. This one renders with that value and the
active language (for ``<html lang>``) and nothing else: no context
processors, no database, no session, since whatever broke the request may
break those too.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.template import loader
from django.utils.html import escape
from django.utils.translation import get_language

from reviewapp import request_id

logger = logging.getLogger(__name__)


def server_error(request: HttpRequest) -> HttpResponse:
    rid = getattr(request, "request_id", None) or request_id.current() or "-"
    try:
        # LANGUAGE_CODE as the i18n context processor would give it: no request, so no processors.
        body = loader.get_template("500.html").render({"request_id": rid, "LANGUAGE_CODE": get_language()})
    except Exception:
        # The error page itself must never fail: fall back to plain text.
        logger.exception("rendering 500.html failed")
        return HttpResponseServerError(
            f"Server error. Request id: {escape(rid)}", content_type="text/plain; charset=utf-8"
        )
    return HttpResponseServerError(body)
