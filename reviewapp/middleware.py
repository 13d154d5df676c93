from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers

from reviewapp import request_id


class RequestIdMiddleware:
    """Give every request an id, log with it, and send it back in X-Request-ID.

    First in MIDDLEWARE so even redirects and errors raised by later
    middleware carry the id, and the 500 page can show it to the user.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rid = request_id.accept_or_new(request.headers.get(request_id.HEADER))
        request.request_id = rid  # type: ignore[attr-defined]
        token = request_id.bind(rid)
        try:
            response = self.get_response(request)
        finally:
            request_id.unbind(token)
        response[request_id.HEADER] = rid
        return response


class VaryOnHtmxMiddleware:
    """Pages answer htmx requests with a fragment, so caches must key on HX-Request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        patch_vary_headers(response, ("HX-Request",))
        return response
