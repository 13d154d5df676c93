"""Placeholder: being built (see the issue for this screen)."""

from django.http import HttpRequest, HttpResponse


def preview_page(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("Not built yet", status=501)


def golden_case_list(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("Not built yet", status=501)


def golden_case_detail(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("Not built yet", status=501)


def api_preview(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("Not built yet", status=501)
