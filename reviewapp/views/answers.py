"""Placeholder: being built (see the issue for this screen)."""

from django.http import HttpRequest, HttpResponse


def answer_question(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("Not built yet", status=501)


def answer_preview(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("Not built yet", status=501)


def api_answer(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("Not built yet", status=501)
