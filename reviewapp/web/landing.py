"""What ``/`` shows a person who asked for nothing in particular, and the nav's link to it.

- Whoever may answer questions (bookkeepers) lands on their queue: items whose
  question waits for an answer in the app, the longest waiting first.
- Support and QA land on every item, newest first. Support comes to the list
  with a customer's "where is my receipt?", which is about something recent
  and in any state; QA looks for fresh material for golden cases across all
  states. A narrower default would hide what either came for.

After login (``after_login_url``), QA land on the prompt preview instead:
golden cases and the playground are their work, the list only a source
of material. Whoever may answer questions keeps the queue.

Any query string at all (even ``?sort=received``) is taken as asked for, so
"Clear filters" and every shared link mean the same thing for everyone.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, PermissionsMixin
from django.http import QueryDict
from django.urls import reverse

from reviewapp.core import roles, states
from reviewapp.inbox.query import SORT_QUEUE, SORT_RECEIVED


def queue_query() -> QueryDict:
    """The bookkeeper's queue as a query string."""
    query = QueryDict(mutable=True)
    query["state"] = states.NEEDS_ANSWER
    query["sort"] = SORT_QUEUE
    return query


def landing_query(user: AbstractBaseUser | AnonymousUser) -> QueryDict:
    """The list ``/`` without a query string shows ``user``."""
    if isinstance(user, PermissionsMixin) and user.has_perm(roles.ANSWER):
        return queue_query()
    return QueryDict()


def inbox_url(user: AbstractBaseUser | AnonymousUser) -> str:
    """The nav's "Inbox": the user's landing list with its parameters spelled out.

    Explicit parameters, not a bare ``/``: the address bar then says which
    list this is, and it reloads and bookmarks as the same list.
    """
    query = landing_query(user)
    return reverse("inbox") + ("?" + query.urlencode() if query else "")


def all_items_url() -> str:
    """Every item, newest first, for anyone ("Clear filters")."""
    return reverse("inbox") + "?sort=" + SORT_RECEIVED


def after_login_url(user: AbstractBaseUser | AnonymousUser, requested: str) -> str:
    """Where the login form sends ``user``: the page they asked for, or their own start page.

    ``requested`` is the ``next`` the login form carries (the login-required
    middleware sends the bare ``/`` for a visitor who opened the site). A QA
    user (may keep golden cases, may not answer) starts on the preview
    rather than that bare list; any other address is kept as asked.
    """
    bare = requested in ("", reverse("inbox"))
    if (
        bare
        and isinstance(user, PermissionsMixin)
        and user.has_perm(roles.SAVE_GOLDEN)
        and not user.has_perm(roles.ANSWER)
    ):
        return reverse("preview")
    return requested or reverse("inbox")
