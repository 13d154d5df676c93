"""An open list's unchanged poll, answered ``304`` in one statement in place of the view (issue 38 part 3).

An open queue asks its own address every 10 s (``static/js/inbox.js``); while
nothing it shows changed, the answer is a ``304 Not Modified``. Through the
whole stack that answer cost three statements (the session, the user, the
list's fingerprint), Django's health check and sixteen middleware, and 50 idle
queues cost about 3 % of a core against the 2 % allowed
(``bench/README.md``, "Idle open queues").

Here the same ``304`` is decided in one prepared statement: the session row,
the user with roles and companies (``auth_backend.USER_WITH_ROLES``) and the
list's fingerprint (``live.fingerprint_columns``), read together. It is only
ever a shortcut to the answer the view would give:

- It answers only a list the view answered for the same session in this
  process (``remember``, by session key and query string): the view records
  whose list it was (the user's id) and the ``ListQuery`` it parsed, with the
  companies that user could see then. Another process or host that has not
  answered that list for that session, or has forgotten it, lets the view
  answer, which records it there. Nothing another process needs is kept, and
  a list whose rows change keeps its entry: only its tag moves.
- Everything the stack would check is checked again against the database, in
  that statement: the session exists and has not expired; it signs in that
  user, through this app's backend, with the hash of the user's current
  password (``get_session_auth_hash``, as ``django.contrib.auth.get_user``
  checks it; a hash of a rotated secret key is left to the stack, which
  updates the session); the user is active and may view items; the companies
  they may see are the ones the query was parsed for; no message waits to be
  shown; and the tag computed now, with the browser's language and the
  rows as they are, equals the one the browser holds.
- Anything else (another address or header, a database error, a check that
  fails) returns None, and the request goes on to the URL resolver, the
  sign-in check and the view as if this module did not exist: they answer the
  200, the 302 to the login page or the 503 they always did.

It runs as the last middleware but one (``UnchangedPollMiddleware``): every
other middleware has validated the host and activated the language, and adds
to its ``304`` the headers it adds to the view's, so both leave alike
(``revalidated`` is the view's own). Measured in ``bench/README.md``, "Idle
open queues".
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from typing import Any, Final

import psycopg
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.messages.storage.cookie import CookieStorage
from django.contrib.messages.storage.session import SessionStorage
from django.contrib.sessions.models import Session
from django.db import DatabaseError, connections, router
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.crypto import constant_time_compare
from django.utils.http import parse_etags
from django.utils.translation import get_language

from reviewapp.core import access, roles
from reviewapp.inbox import live
from reviewapp.inbox.query import ListQuery
from reviewapp.web.auth_backend import USER_WITH_ROLES, USER_WITH_ROLES_COLUMNS, UserWithRolesBackend

# How many (session, list) pairs a process remembers; an entry is a few hundred bytes.
REMEMBERED_LISTS: Final = 4096
# The backend path login() records in the session (settings.AUTHENTICATION_BACKENDS).
_BACKEND: Final = f"{UserWithRolesBackend.__module__}.{UserWithRolesBackend.__qualname__}"


@dataclasses.dataclass(frozen=True, slots=True)
class Answered:
    """A list this process answered for a session: the user it was for and the query as parsed for them."""

    user_id: int
    query: ListQuery


class _Remembered:
    """The last ``REMEMBERED_LISTS`` lists the view answered, by (session key, query string), for every thread."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[str, str], Answered] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, key: tuple[str, str], answered: Answered) -> None:
        with self._lock:
            self._entries[key] = answered
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def get(self, key: tuple[str, str]) -> Answered | None:
        with self._lock:
            return self._entries.get(key)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_remembered = _Remembered(REMEMBERED_LISTS)


def remember(request: HttpRequest, *, query: ListQuery) -> None:
    """Record that the view answered ``request``'s list for its user, parsed as ``query`` (``views.inbox``)."""
    session_key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    query_string = request.META.get("QUERY_STRING", "")
    # No query string: the user's landing list, which the view picks. Search
    # text: the notes that match it are read apart (``filtered_items``). Both
    # are left to the stack.
    if session_key and query_string and request.user.pk is not None and not query.text:
        _remembered.put((session_key, query_string), Answered(request.user.pk, query))


def forget_all() -> None:
    """Forget every list answered (tests)."""
    _remembered.clear()


def not_modified(request: HttpRequest) -> HttpResponse | None:
    """The ``304`` for an open list's poll whose tag still holds; None when the stack must answer."""
    tag = _polled_tag(request)
    session_key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if tag is None or not session_key:
        return None
    answered = _remembered.get((session_key, request.META.get("QUERY_STRING", "")))
    if answered is None:
        return None
    row = _read(session_key, answered)
    if row is None:
        return None
    # SessionMiddleware's store for this request, which has not read the database: only its decoding is used.
    session = request.session.decode(row[0])
    if not _still_holds(tag, session_key, answered, session, row[1:]):
        return None
    return revalidated(HttpResponseNotModified(), tag)


def revalidated(response: HttpResponse, tag: str) -> HttpResponse:
    """``response`` with its ``ETag``, to be asked again every time (``no-cache``) and by nobody else (``private``)."""
    response["ETag"] = tag
    patch_cache_control(response, private=True, no_cache=True)
    # The session's cookie or the bearer token says whose list it is (the tag names the user too).
    patch_vary_headers(response, ("Cookie", "Authorization"))
    return response


def _polled_tag(request: HttpRequest) -> str | None:
    """The one tag an htmx poll of the list page holds, or None for any other request."""
    headers = request.headers
    # Every request passes here: the cheap tests first, the URL last.
    if (
        request.method != "GET"
        or headers.get("HX-Trigger") != live.POLL_ELEMENT
        or headers.get("HX-Request") != "true"
        or headers.get("HX-History-Restore-Request") == "true"
        # A message waits in its cookie: the stack shows it.
        or CookieStorage.cookie_name in request.COOKIES
        or request.path_info != reverse("inbox")
    ):
        return None
    tags = parse_etags(headers.get("If-None-Match", ""))
    return tags[0] if len(tags) == 1 else None


def _read(session_key: str, answered: Answered) -> tuple[Any, ...] | None:
    """The session's data, the user's row (``USER_WITH_ROLES``) and the list's fingerprint, in one statement."""
    columns, params = live.fingerprint_columns(answered.query)
    sql = f"""
        SELECT s.session_data, u.*, {columns}
        FROM {Session._meta.db_table} s CROSS JOIN LATERAL ({USER_WITH_ROLES}) u
        WHERE s.session_key = %s AND s.expire_date > %s
    """  # noqa: S608 - table names and SQL from the code; every value is a parameter
    alias = router.db_for_read(Session)
    if alias != router.db_for_read(User):
        return None  # the join needs both tables in one database
    database = connections[alias]
    try:
        # No health check first (Django's SELECT 1): a connection that died
        # fails here, and the stack's first query checks it and connects anew.
        database.ensure_connection()
        cursor: Any = _PreparedCursor(database.connection)  # Django's wrappers take any DB-API cursor
        wrap = database.make_debug_cursor if database.queries_logged else database.make_cursor
        with wrap(cursor) as wrapped:
            wrapped.execute(sql, [*params, answered.user_id, session_key, timezone.now()])
            return wrapped.fetchone()
    except DatabaseError:
        return None  # the stack meets the same database and answers 503 (reviewapp.web.outages)


class _PreparedCursor(psycopg.Cursor[Any]):
    """A cursor whose statements are prepared on their connection: each list's plan is made once.

    Planning the statement was 1.1 of its 1.4 ms of PostgreSQL's CPU (measured
    in a loop on the load bench's databases); a prepared one is planned on its
    first run on a connection, then executed. Django's own cursors bind values
    on the client and never prepare. psycopg keeps at most 100 statements a
    connection and forgets the oldest. (Through a pooler in transaction mode a
    prepared statement may not follow the session; docs/operations.md says the
    app's database is reached directly or in session mode, as LISTEN needs.)
    """

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: bool | None = None
    ) -> Any:
        return super().execute(query, params, prepare=True, binary=binary)


def _still_holds(
    tag: str, session_key: str, answered: Answered, session: dict[str, Any], rest: tuple[Any, ...]
) -> bool:
    """Whether the session and the rest of ``_read``'s row sign the user in as the stack would, and ``tag`` holds."""
    user_row, fingerprint = rest[:USER_WITH_ROLES_COLUMNS], rest[USER_WITH_ROLES_COLUMNS:]
    user = UserWithRolesBackend().user_from_row(router.db_for_read(User), user_row)
    if user is None or not _signs_in(session, user) or SessionStorage.session_key in session:
        return False
    if not user.has_perm(roles.VIEW_ITEMS) or access.company_ids(user) != answered.query.company_ids:
        return False
    now = live.read_fingerprint(fingerprint)
    current = live.list_tag(
        kind="htmx", user_id=user.pk, language=get_language(), query=answered.query, now=now, session_key=session_key
    )
    return current == tag


def _signs_in(session: dict[str, Any], user: User) -> bool:
    """Whether ``session`` signs ``user`` in as ``django.contrib.auth.get_user`` would, without a fallback key."""
    return (
        session.get(SESSION_KEY) == user._meta.pk.value_to_string(user)  # type: ignore[union-attr]
        and session.get(BACKEND_SESSION_KEY) == _BACKEND
        and _BACKEND in settings.AUTHENTICATION_BACKENDS
        and constant_time_compare(session.get(HASH_SESSION_KEY) or "", user.get_session_auth_hash())
    )
