"""An open list's unchanged poll in one statement (``reviewapp/web/unchanged_poll.py``, issue 38 part 3).

The shortcut may only ever give the answer the whole stack would: a ``304``
with the same headers while nothing changed, and otherwise exactly what the
view gives (the new rows, the login page, a 403). Each test below polls as
``static/js/inbox.js`` does, after the page was opened in this process.
"""

from __future__ import annotations

import datetime as dt
import json

import psycopg
import pytest
from django.contrib.auth.models import Permission
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from reviewapp.core import roles
from reviewapp.models import CompanyAssignment
from reviewapp.web import unchanged_poll
from tests import factories
from tests.answers.conftest import moved_item

pytestmark = pytest.mark.django_db

QUEUE = reverse("inbox") + "?state=needs_answer&sort=queue"
POLL = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": "inbox-live"}


@pytest.fixture(autouse=True)
def _nothing_remembered():  # type: ignore[no-untyped-def]
    # Each test starts as a fresh process would: no list answered yet.
    unchanged_poll.forget_all()
    yield
    unchanged_poll.forget_all()


def _otto(*companies):  # type: ignore[no-untyped-def]
    """A bookkeeper assigned some companies only: his list is scoped by his assignments."""
    otto = factories.make_user(roles.BOOKKEEPER, username="otto")
    for company in companies:
        CompanyAssignment.objects.create(user=otto, company_id=company.pk)
    return otto


def _opened(user, **headers):  # type: ignore[no-untyped-def]
    """A signed-in client whose queue is open: (client, the tag its page polls with)."""
    client = Client(**headers)
    client.force_login(user)
    opened = client.get(QUEUE, **POLL)
    assert opened.status_code == 200
    return client, opened["ETag"]


def _poll(client: Client, tag: str, **headers: str):  # type: ignore[no-untyped-def]
    return client.get(QUEUE, HTTP_IF_NONE_MATCH=tag, **POLL, **headers)


def test_an_unchanged_poll_is_one_statement(django_assert_num_queries):
    company = factories.make_company()
    moved_item("context", company=company)
    client, tag = _opened(_otto(company))
    # The session, the user with roles and companies, and the rows, counts and
    # sync time, together. A change that splits it again fails here.
    with django_assert_num_queries(1):
        assert _poll(client, tag).status_code == 304


def test_a_list_this_process_never_answered_takes_the_whole_stack(django_assert_num_queries):
    company = factories.make_company()
    moved_item("context", company=company)
    client, tag = _opened(_otto(company))
    unchanged_poll.forget_all()  # another process, or another host
    # The session; the user; the rows: as before the shortcut. The view then records the list here.
    with django_assert_num_queries(3):
        assert _poll(client, tag).status_code == 304
    with django_assert_num_queries(1):
        assert _poll(client, tag).status_code == 304


def test_its_304_leaves_with_the_headers_of_the_views():
    company = factories.make_company()
    moved_item("context", company=company)
    client, tag = _opened(_otto(company), HTTP_ACCEPT_LANGUAGE="sv")
    short = _poll(client, tag)
    unchanged_poll.forget_all()
    whole = _poll(client, tag)
    assert short.status_code == whole.status_code == 304

    def headers(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
        return {name: value for name, value in response.headers.items() if name != "X-Request-ID"}

    assert headers(short) == headers(whole)
    assert short["Vary"] == "Cookie, Authorization, HX-Request, Accept-Language"
    assert short["Cache-Control"] == "private, no-cache"


def test_a_change_is_sent_and_the_new_tag_is_again_one_statement(bookkeeper, django_assert_num_queries):
    answered = moved_item("context")
    client, tag = _opened(bookkeeper)
    colleague = factories.make_user(roles.BOOKKEEPER, username="anna")
    colleague.user_permissions.add(
        Permission.objects.get(codename="view_all_companies", content_type__app_label="reviewapp")
    )
    other = Client()
    other.force_login(colleague)
    saved = other.post(
        reverse("api_item_answer", args=[answered.pk]),
        json.dumps({"question": "context", "text": "Taxi till kund"}),
        content_type="application/json",
    )
    assert saved.status_code == 200

    changed = _poll(client, tag)
    assert changed.status_code == 200
    assert f"row-{answered.pk}" not in changed.content.decode()
    with django_assert_num_queries(1):
        assert _poll(client, changed["ETag"]).status_code == 304


def _expire_sessions(user) -> None:  # type: ignore[no-untyped-def]
    Session.objects.update(expire_date=timezone.now() - dt.timedelta(seconds=1))


def _deactivate(user) -> None:  # type: ignore[no-untyped-def]
    user.is_active = False
    user.save()


@pytest.mark.parametrize("sign_out", [_expire_sessions, _deactivate], ids=["session expired", "user deactivated"])
def test_a_poll_that_no_longer_signs_in_goes_to_the_login_page(bookkeeper, sign_out):
    moved_item("context")
    client, tag = _opened(bookkeeper)
    sign_out(bookkeeper)
    response = _poll(client, tag)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_user_who_may_no_longer_view_items_is_refused(bookkeeper):
    moved_item("context")
    client, tag = _opened(bookkeeper)
    bookkeeper.groups.clear()
    assert _poll(client, tag).status_code == 403


def test_a_message_waiting_takes_the_poll_to_the_view(bookkeeper):
    client, tag = _opened(bookkeeper)
    # "n" with nothing free: a message waits in its cookie (and, when too long for it, in the session
    # behind a marker in the cookie: Django's FallbackStorage), and only the view may decide what to do with it.
    client.get(reverse("next_free"))
    assert "messages" in client.cookies
    assert _poll(client, tag).status_code == 200


def test_another_language_is_another_copy(bookkeeper):
    moved_item("context")
    client, tag = _opened(bookkeeper, HTTP_ACCEPT_LANGUAGE="sv")
    response = _poll(client, tag, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert response["ETag"] != tag


def test_a_company_taken_away_sends_the_list_again_without_its_rows():
    kept, taken = factories.make_company(), factories.make_company()
    kept_item, taken_item = moved_item("context", company=kept), moved_item("context", company=taken)
    otto = _otto(kept, taken)
    client, tag = _opened(otto)
    assert _poll(client, tag).status_code == 304
    CompanyAssignment.objects.filter(user=otto, company_id=taken.pk).delete()
    response = _poll(client, tag)
    assert response.status_code == 200
    assert f"row-{kept_item.pk}" in response.content.decode()
    assert str(taken_item.pk) not in response.content.decode()


def test_a_tag_for_another_session_of_the_same_user_is_sent_again(bookkeeper):
    moved_item("context")
    _first, tag = _opened(bookkeeper)
    second, _ = _opened(bookkeeper)
    # The first browser's copy carries the first session's CSRF token.
    assert _poll(second, tag).status_code == 200


def test_a_database_error_on_the_statement_leaves_the_poll_to_the_stack(bookkeeper, monkeypatch):
    moved_item("context")
    client, tag = _opened(bookkeeper)

    def fails(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise psycopg.OperationalError("the server closed the connection unexpectedly")

    monkeypatch.setattr(unchanged_poll._PreparedCursor, "execute", fails)
    assert _poll(client, tag).status_code == 304


def test_a_history_restore_is_never_answered_by_the_shortcut(bookkeeper):
    moved_item("context")
    client, tag = _opened(bookkeeper)
    # htmx asks for the whole page when its history cache missed: the stack answers with the page's own tag.
    response = _poll(client, tag, HTTP_HX_HISTORY_RESTORE_REQUEST="true")
    assert response.status_code == 200
    assert "<html" in response.content.decode()
