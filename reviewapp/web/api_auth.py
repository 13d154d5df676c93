"""Authentication for the JSON API: a session (with CSRF) or a personal token.

Scripts send ``Authorization: Bearer <token>``. A token is not ambient the way
a cookie is, so a token request needs no CSRF token; a session request does,
and gets the same CSRF check as every form. Unauthenticated API calls get a
JSON 401 rather than the login redirect a browser page gets. Tokens expire
(an expired one gets a 401 saying so, ``"code": "token_expired"``); their
owners list, create and revoke them on /account/tokens/.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from reviewapp.core.rendering_caps import PRINTED_TEXT_MAX_CHARS, capped_for_json
from reviewapp.models import ApiToken

TOKEN_PREFIX = "rvw_"  # noqa: S105 - a visible marker, not a secret


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def create_token(user: Any, *, days: int | None = None, name: str = "") -> str:
    """Create a token for ``user`` valid for ``days`` (API_TOKEN_DEFAULT_DAYS) and return it.

    Only its hash is kept, so this is the one time it can be shown.
    """
    days = settings.API_TOKEN_DEFAULT_DAYS if days is None else days
    if not 1 <= days <= settings.API_TOKEN_MAX_DAYS:
        raise ValueError(f"a token lives 1 to {settings.API_TOKEN_MAX_DAYS} days, not {days}")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    ApiToken.objects.create(
        user=user,
        key_hash=hash_token(raw),
        prefix=raw[:12],
        name=name,
        expires_at=timezone.now() + timedelta(days=days),
    )
    return raw


def _token_from_header(header: str) -> ApiToken | None:
    scheme, _, raw = header.partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        return None
    token = ApiToken.objects.select_related("user").filter(key_hash=hash_token(raw.strip())).first()
    if token is None or not token.user.is_active:
        return None
    return token


def _csrf_failure(request: HttpRequest) -> HttpResponse | None:
    check = CsrfViewMiddleware(lambda r: HttpResponse())
    check.process_request(request)
    return check.process_view(request, lambda r: HttpResponse(), (), {})


def json_response(data: dict[str, Any], *, status: int = 200) -> JsonResponse:
    """Every JSON answer of the API: ``data`` with each string within the printed cap.

    The one place the API keeps ``reviewapp.core.rendering_caps.PRINTED_TEXT_MAX_CHARS``
    (``capped_for_json``: a cut string's object says so in ``"truncated"``),
    whatever view built ``data`` and however a stored text reached it.
    """
    response = JsonResponse(data, status=status)
    if len(response.content) <= PRINTED_TEXT_MAX_CHARS:
        # No string in it can be longer than the whole: nothing to walk (the list's 50 rows are about 30 KB).
        return response
    return JsonResponse(capped_for_json(data), status=status)


def json_error(status: int, message: str, **extra: Any) -> JsonResponse:
    return json_response({"error": message, **extra}, status=status)


def api_view(
    *, methods: Iterable[str], permission: str | None = None
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Decorate a JSON API view: method, authentication, CSRF and permission checks."""
    allowed = frozenset(m.upper() for m in methods)

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in allowed:
                response = json_error(405, f"method {request.method} not allowed")
                response["Allow"] = ", ".join(sorted(allowed))
                return response
            header = request.headers.get("Authorization", "")
            if header:
                token = _token_from_header(header)
                if token is None:
                    return json_error(401, "invalid or unknown API token")
                now = timezone.now()
                if token.is_expired(now):
                    return json_error(
                        401,
                        f"API token {token.prefix}… expired at {token.expires_at.isoformat(timespec='seconds')}; "
                        f"create a new one at {reverse('api_tokens')}",
                        code="token_expired",
                    )
                ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
                request.user = token.user
            elif not request.user.is_authenticated:
                return json_error(401, "authentication required: log in or send Authorization: Bearer <token>")
            elif request.method not in ("GET", "HEAD", "OPTIONS") and _csrf_failure(request) is not None:
                return json_error(403, "CSRF token missing or incorrect")
            if permission is not None and not request.user.has_perm(permission):
                return json_error(403, "your role may not do this")
            return view(request, *args, **kwargs)

        return login_not_required(csrf_exempt(wrapper))

    return decorator
