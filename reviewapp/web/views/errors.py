"""The 500 page: plain, no traceback, with the request id to quote to support.

Django's default 500 view renders the template without any context, so the
page could not show the request id. This one renders with that value and the
active language (for ``<html lang>``) and nothing else: no context
processors, no database, no session, since whatever broke the request may
break those too.

An error that is a database not answering (``reviewapp.web.outages``) gets that
503 instead of a 500: the review database failing in the session or
authentication middleware lands here, not in a view.
"""

from __future__ import annotations

import logging
import sys

from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.template import loader
from django.utils.html import escape
from django.utils.translation import get_language

from reviewapp.web import outages, request_id

logger = logging.getLogger(__name__)


def server_error(request: HttpRequest) -> HttpResponse:
    # A database that does not answer, met outside a view (the session, the
    # user; views' own go through DatabaseOutageMiddleware): a 503 naming it.
    error = sys.exc_info()[1]
    if error is not None:
        try:
            outage = outages.unavailable(request, error)
        except Exception:
            logger.exception("rendering the outage page failed")
            outage = None
        if outage is not None:
            return outage
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
