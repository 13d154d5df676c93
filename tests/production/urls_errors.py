"""The app's URLs plus three views that fail on purpose, for the error-page tests."""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path

from reviewapp.urls import urlpatterns as app_urlpatterns

logger = logging.getLogger("tests.production")


def boom(request: HttpRequest) -> HttpResponse:
    logger.warning("about to fail")
    raise RuntimeError("boom: secret internal detail")


def forbidden(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("secret reason for the refusal")


def missing(request: HttpRequest) -> HttpResponse:
    raise Http404("secret lookup detail")


urlpatterns = [
    path("test-errors/boom/", boom),
    path("test-errors/forbidden/", forbidden),
    path("test-errors/missing/", missing),
    *app_urlpatterns,
]

handler500 = "reviewapp.web.views.errors.server_error"
