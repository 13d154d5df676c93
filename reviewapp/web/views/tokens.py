"""/account/tokens/: a signed-in user's own API tokens: list, create (shown once), revoke."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from reviewapp.core import text
from reviewapp.models import ApiToken
from reviewapp.web.api_auth import create_token

LIFETIMES = (7, 30, 90, 180, 365)


def _lifetime_choices() -> list[tuple[int, str]]:
    days = sorted({d for d in (*LIFETIMES, settings.API_TOKEN_DEFAULT_DAYS) if d <= settings.API_TOKEN_MAX_DAYS})
    return [(d, ngettext("%(days)d day", "%(days)d days", d) % {"days": d}) for d in days]


class TokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("What it is for"),
        max_length=100,
        help_text=gettext_lazy("For example the script or machine that uses it."),
    )
    days = forms.TypedChoiceField(label=gettext_lazy("Expires after"), coerce=int, choices=_lifetime_choices)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {"days": settings.API_TOKEN_DEFAULT_DAYS})
        super().__init__(*args, **kwargs)

    def clean_name(self) -> str:
        # A name is how its owner tells tokens apart in the list: one that is
        # empty, invisible or shown in another order than typed cannot do that.
        try:
            name = text.clean(self.cleaned_data["name"], max_length=100)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None
        if not name:
            raise forms.ValidationError(_("Name the token, for example the script or machine that uses it."))
        return name


def _owner(request: HttpRequest) -> User:
    """The signed-in user (LoginRequiredMiddleware lets nobody else in)."""
    if not isinstance(request.user, User):
        raise PermissionDenied
    return request.user


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def token_list(request: HttpRequest) -> HttpResponse:
    owner = _owner(request)
    new_token = ""
    if request.method == "POST":
        form = TokenForm(request.POST)
        if form.is_valid():
            new_token = create_token(owner, days=form.cleaned_data["days"], name=form.cleaned_data["name"])
            # Rendered in this response rather than after a redirect: the
            # token must not pass through the session or a cookie, and
            # never_cache keeps it out of the browser's cache.
            form = TokenForm()
    else:
        form = TokenForm()
    tokens = ApiToken.objects.filter(user=owner).order_by("-created_at", "-pk")
    return render(request, "tokens/list.html", {"form": form, "tokens": tokens, "new_token": new_token})


@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    # Someone else's token is "not found", the same as one that never existed.
    token = get_object_or_404(ApiToken, pk=token_id, user=_owner(request))
    prefix = token.prefix
    token.delete()
    messages.success(request, _("Token %(prefix)s… is revoked: requests sending it are refused.") % {"prefix": prefix})
    return redirect("api_tokens")
