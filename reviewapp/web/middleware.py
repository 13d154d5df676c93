from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.template.defaultfilters import filesizeformat
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _

from reviewapp.web import body_limits, outages, refusals, request_id, unchanged_poll


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


class UnchangedPollMiddleware:
    """An open list's poll whose tag still holds: ``304`` in one statement (``reviewapp.web.unchanged_poll``).

    Last but the outage handler, so every other middleware has done its part
    (the host, the language, the headers of every answer) and its ``304``
    leaves with the headers the view's would; it stands in for the URL
    resolver, the sign-in check and the view. Any other request, and a poll
    that needs more than a ``304``, goes on to them untouched.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return unchanged_poll.not_modified(request) or self.get_response(request)


class VaryOnHtmxMiddleware:
    """Pages answer htmx requests with a fragment, so caches must key on HX-Request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        patch_vary_headers(response, ("HX-Request",))
        return response


class BodyLimitMiddleware:
    """413 for a body larger than its view accepts, before anything reads it (``reviewapp.web.body_limits``).

    Before the session and CSRF middleware: a refused body costs no session
    lookup, and nothing has parsed it yet.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = body_limits.limit_for(request.path_info)
        length = body_limits.declared_length(request)
        if length is not None:
            if length > limit:
                return self._too_large(request, limit)
        elif body_limits.is_streamed(request):
            try:
                body = body_limits.read_capped(request.META["wsgi.input"], limit)
            except body_limits.BodyTooLarge:
                return self._too_large(request, limit)
            body_limits.hand_over(request, body)
        return self.get_response(request)

    @staticmethod
    def _too_large(request: HttpRequest, limit: int) -> HttpResponse:
        if refusals.is_api(request):
            with translation.override("en"):  # the API speaks English
                message = f"the body is larger than the {filesizeformat(limit)} this address accepts; nothing was saved"
            return refusals.json_refusal(request, status=413, message=message)
        # Before LocaleMiddleware: the language the person's browser or cookie asks for.
        with translation.override(translation.get_language_from_request(request)):
            return refusals.refusal(
                request,
                status=413,
                title=_("Too large to send"),
                message=_(
                    "What you sent is larger than the %(size)s this page accepts, so nothing was saved. "
                    "Choose a smaller file or shorten the text, then try again."
                )
                % {"size": filesizeformat(limit)},
            )


class DatabaseOutageMiddleware:
    """A view that meets a database that does not answer: 503 naming it, not a 500 (``reviewapp.web.outages``).

    Last in MIDDLEWARE, so its answer still passes every other middleware
    (headers, Vary). A failure outside a view (the session, the user) is
    answered the same by the 500 handler (``reviewapp.web.views.errors``).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return outages.unavailable(request, exception)
