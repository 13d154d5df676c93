"""Placeholder: being built (see the issue for this screen)."""

from django.http import HttpRequest, HttpResponse


def item_detail(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("Not built yet", status=501)


def item_document(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("Not built yet", status=501)


def api_item_detail(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("Not built yet", status=501)
