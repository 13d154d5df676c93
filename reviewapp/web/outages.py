"""A database that does not answer: 503 with Retry-After, naming which one, instead of a 500.

accounted's database (``bookkeeping``) down, refusing connections or hung
past its timeouts (BOOKKEEPING_CONNECT_TIMEOUT, BOOKKEEPING_STATEMENT_TIMEOUT
in settings.py, and the limits the app enforces itself on an open
connection: reviewapp/bookkeeping/bounded_pg) makes every page that reads it answer "accounted's
database does not answer; nothing was saved"; the list, which reads only
the review app's read model, keeps working. The review app's own database
(``default``) down gets the same refusal about it, from a page that needs
neither the session nor the database.

Nothing was saved is true, not hopeful: the answer writes accounted's row
in one transaction (rolled back when a statement fails) and its own log
only after that commit (``reviewapp.answers.writing``); the item page
reserves an item only after it has read it from accounted.

Which database failed is read from the error itself: Django turns a
driver error into its own inside ``DatabaseErrorWrapper.__exit__`` of the
failing connection, so that frame is in the traceback, with the
connection's alias. Flags on the connection (``errors_occurred``) would
not do: a rollback clears them before the error reaches us.
"""

from __future__ import annotations

import logging
from typing import Final

from django.db import InterfaceError, OperationalError
from django.db.utils import DatabaseErrorWrapper
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.web import refusals

logger = logging.getLogger(__name__)

# Seconds a client is asked to wait: about a connect and a statement timeout.
RETRY_AFTER: Final = 30


def failed_alias(error: BaseException) -> str | None:
    """The alias of the database whose connection raised ``error``, if it is an outage (not a bad query)."""
    if not isinstance(error, OperationalError | InterfaceError):
        return None
    alias = None
    traceback = error.__traceback__
    while traceback is not None:
        wrapper = traceback.tb_frame.f_locals.get("self")
        # type(), not isinstance(): a frame's ``self`` may be a lazy object
        # (request.user) that isinstance() would evaluate, querying again.
        if issubclass(type(wrapper), DatabaseErrorWrapper):
            alias = wrapper.wrapper.alias  # type: ignore[union-attr]  # the innermost one raised it
        traceback = traceback.tb_next
    return alias


def unavailable(request: HttpRequest, error: BaseException) -> HttpResponse | None:
    """The 503 for a database outage behind ``error``; None for any other error."""
    alias = failed_alias(error)
    if alias is None:
        return None
    logger.warning("database %r does not answer (%s: %s); answered 503", alias, type(error).__name__, error)
    accounted = alias == BOOKKEEPING_DB
    if refusals.is_api(request):
        message = (
            "accounted's database does not answer; nothing was saved"
            if accounted
            else "the review app's database does not answer; nothing was saved"
        )
        return refusals.json_refusal(request, status=503, message=message, retry_after=RETRY_AFTER)
    if accounted:
        title = _("accounted does not answer")
        message = _(
            "accounted's database does not answer; nothing was saved. Try again in a minute. "
            "The list still shows the items as last read."
        )
    else:
        title = _("The review app's database does not answer")
        message = _("The review app's database does not answer; nothing was saved. Try again in a minute.")
    return refusals.refusal(request, status=503, title=title, message=message, retry_after=RETRY_AFTER)
