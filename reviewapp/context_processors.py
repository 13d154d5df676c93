from __future__ import annotations

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.utils.functional import SimpleLazyObject
from django.utils.html import format_html

from reviewapp import roles
from reviewapp.inbox.landing import inbox_url


def user_roles(request: HttpRequest) -> dict[str, object]:
    """The signed-in user's role names and landing list, for the header and navigation.

    What a user may do is Django's ``perms`` in templates (``perms.reviewapp.use_preview``).
    """
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "user_roles": roles.role_labels(user),
        # The nav's "Inbox": a bookkeeper's queue, with its parameters spelled out.
        "inbox_url": inbox_url(user),
    }


def csrf_once(request: HttpRequest) -> dict[str, object]:
    """``csrf_token`` and ``csrf_input`` for Jinja2 pages, masked once a response.

    Django's Jinja2 backend masks the token anew each time a page prints it
    (three times on every page: the header's two forms and htmx's header),
    and each mask is 32 characters from the system's random source. One
    masked token per response protects as well: the mask exists so the
    bytes differ from response to response.
    """
    token = SimpleLazyObject(lambda: get_token(request))
    return {
        "csrf_token": token,
        "csrf_input": SimpleLazyObject(
            lambda: format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', token)
        ),
    }
