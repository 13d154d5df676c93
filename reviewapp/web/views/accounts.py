"""Log in, with throttling of repeated failures (see reviewapp.web.throttle)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.translation import ngettext

from reviewapp.web import throttle
from reviewapp.web.landing import after_login_url

logger = logging.getLogger(__name__)


def with_login_ticket[**P, R: HttpResponseBase](view: Callable[P, R]) -> Callable[P, R]:
    """Keep the client's place in the throttle's queue (``throttle._take_turn``) in a cookie.

    A cookie rather than a form field, so that it works for the admin's
    login page too, whose template we do not own. HttpOnly: no script needs it.
    """

    @wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        response = view(*args, **kwargs)
        request = args[0]
        assert isinstance(request, HttpRequest)
        ticket = getattr(request, "login_ticket", None)
        if ticket:
            response.set_cookie(
                throttle.TICKET_COOKIE,
                ticket,
                max_age=settings.LOGIN_THROTTLE_WINDOW + 2 * settings.LOGIN_THROTTLE_NEW_ADDRESS_WAIT,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        elif ticket == "":
            response.delete_cookie(throttle.TICKET_COOKIE, samesite="Lax")
        return response

    return wrapped


class ThrottledLoginMixin:
    """Claims an attempt before the password is checked; refuses when a limit says so."""

    request: Any
    cleaned_data: dict[str, Any]
    throttled: bool = False
    retry_after: int = 0

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is None or not password or self.request is None:
            return super().clean()  # type: ignore[misc,no-any-return]
        address = throttle.client_address(self.request)
        ticket = self.request.COOKIES.get(throttle.TICKET_COOKIE, "")
        verdict = throttle.claim_attempt(username, address, ticket=ticket)
        # with_login_ticket puts it in the response's cookie.
        self.request.login_ticket = verdict.ticket
        if not verdict.allowed:
            self.throttled = True
            self.retry_after = verdict.retry_after
            logger.warning("login throttled (%s) for username %r from %s", verdict.reason, username, address)
            raise self._refusal(verdict)
        cleaned = super().clean()  # type: ignore[misc]
        user = self.get_user()  # type: ignore[attr-defined]
        throttle.record_success(username, address, verdict, user_id=user.pk if user is not None else None)
        return cleaned  # type: ignore[no-any-return]

    @staticmethod
    def _refusal(verdict: throttle.Verdict) -> ValidationError:
        if verdict.reason == throttle.SLOW_DOWN:
            # Failures for this username from elsewhere: not a lock, one wait.
            seconds = verdict.retry_after
            return ValidationError(
                ngettext(
                    "This account has had many failed logins from other places. "
                    "For its safety, wait %(seconds)d second, then log in again.",
                    "This account has had many failed logins from other places. "
                    "For its safety, wait %(seconds)d seconds, then log in again.",
                    seconds,
                ),
                code="slow_down",
                params={"seconds": seconds},
            )
        if verdict.reason == throttle.SLOW_DOWN_HERE:
            # Failures from an address this user has logged in from: a wait, never the lock.
            seconds = verdict.retry_after
            return ValidationError(
                ngettext(
                    "Too many failed logins for this account. For its safety, wait %(seconds)d second, "
                    "then log in again.",
                    "Too many failed logins for this account. For its safety, wait %(seconds)d seconds, "
                    "then log in again.",
                    seconds,
                ),
                code="slow_down",
                params={"seconds": seconds},
            )
        minutes = verdict.retry_after_minutes
        return ValidationError(
            ngettext(
                "Too many failed login attempts. Try again in %(minutes)d minute.",
                "Too many failed login attempts. Try again in %(minutes)d minutes.",
                minutes,
            ),
            code="throttled",
            params={"minutes": minutes},
        )


class LoginForm(ThrottledLoginMixin, AuthenticationForm):
    pass


class AdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    pass


class LoginView(auth_views.LoginView):
    form_class = LoginForm

    def get_success_url(self) -> str:
        # QA start on the preview, others where they were going (inbox.landing).
        return after_login_url(self.request.user, self.get_redirect_url())

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if getattr(form, "throttled", False):
            # 429 and Retry-After tell scripts and monitoring what happened;
            # the page still explains it to the person in words.
            response.status_code = 429
            response["Retry-After"] = str(form.retry_after)
        return response


login_view = with_login_ticket(LoginView.as_view())
