from __future__ import annotations

from django.http import HttpRequest

from reviewapp.core import roles
from reviewapp.web.landing import inbox_url


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
