"""The list answers conditional requests (issue 38 part 3): an open queue polls itself for almost nothing.

A copy whose ``ETag`` still describes the rows gets ``304 Not Modified``; a
colleague's answer or reservation gives a 200 with a new tag; a tag is never
valid for another user, another list or another representation.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.contrib.auth.models import Permission
from django.http import QueryDict
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from reviewapp.core import roles
from reviewapp.inbox import reservations
from reviewapp.models import CompanyAssignment, SyncState
from reviewapp.web.api_auth import create_token
from reviewapp.web.forms.inbox import parse_list_query, remembered_list_query
from tests import factories
from tests.answers.conftest import moved_item
from tests.inbox.helpers import pending

pytestmark = pytest.mark.django_db

QUEUE = reverse("inbox") + "?state=needs_answer"
API_QUEUE = reverse("api_items") + "?state=needs_answer"


@pytest.fixture
def anna(db):  # type: ignore[no-untyped-def]
    """A colleague of bea's, firm-wide as she is."""
    user = factories.make_user(roles.BOOKKEEPER, username="anna")
    user.user_permissions.add(
        Permission.objects.get(codename="view_all_companies", content_type__app_label="reviewapp")
    )
    return user


def _client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _answer(client: Client, item) -> None:  # type: ignore[no-untyped-def]
    response = client.post(
        reverse("api_item_answer", args=[item.pk]),
        json.dumps({"question": "context", "text": "Taxi till kund"}),
        content_type="application/json",
    )
    assert response.status_code == 200


def _poll(client: Client, tag: str) -> object:
    """What the open list's poll sends: htmx's headers, naming the polling element, and the tag it holds."""
    return client.get(QUEUE, HTTP_HX_REQUEST="true", HTTP_HX_TRIGGER="inbox-live", HTTP_IF_NONE_MATCH=tag)


def _embedded_tag(body: str) -> str:
    found = re.search(r'id="inbox-live"[^>]*data-etag="([^"]+)"', body, re.DOTALL)
    assert found, "the open list carries no tag to poll with"
    return found.group(1).replace("&#34;", '"').replace("&quot;", '"')


def test_an_unchanged_queue_is_not_sent_again(bookkeeper_client):
    item = moved_item("context")
    first = bookkeeper_client.get(QUEUE)
    assert first.status_code == 200
    assert str(item.pk) in first.content.decode()
    tag = first["ETag"]
    again = bookkeeper_client.get(QUEUE, HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == tag
    # Nobody else may keep it, and the browser must ask every time.
    assert "private" in again["Cache-Control"]
    assert "no-cache" in again["Cache-Control"]


def test_the_open_queue_polls_with_its_own_tag_and_gets_a_304(bookkeeper_client):
    moved_item("context")
    page = bookkeeper_client.get(QUEUE)
    response = _poll(bookkeeper_client, _embedded_tag(page.content.decode()))
    assert response.status_code == 304


def test_an_answer_by_a_colleague_changes_the_tag_and_the_item_leaves(bookkeeper, bookkeeper_client, anna):
    answered, other = moved_item("context"), moved_item("context")
    page = bookkeeper_client.get(QUEUE)
    tag = _embedded_tag(page.content.decode())

    _answer(_client(anna), answered)

    response = _poll(bookkeeper_client, tag)
    assert response.status_code == 200
    assert response["ETag"] != tag
    body = response.content.decode()
    assert f"row-{other.pk}" in body
    assert f"row-{answered.pk}" not in body
    # A poll never changes the address bar or Back's history.
    assert "HX-Push-Url" not in response
    # And the new tag is good for the next poll.
    assert _poll(bookkeeper_client, response["ETag"]).status_code == 304


def test_a_colleague_opening_an_item_changes_the_tag(bookkeeper_client, anna):
    item = moved_item("context")
    tag = bookkeeper_client.get(QUEUE)["ETag"]
    reservations.reserve(item.pk, anna)
    response = bookkeeper_client.get(QUEUE, HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 200
    assert "anna is answering" in response.content.decode()


def test_a_new_question_changes_the_tag(bookkeeper_client):
    moved_item("context")
    tag = bookkeeper_client.get(QUEUE)["ETag"]
    moved_item("resend")
    assert bookkeeper_client.get(QUEUE, HTTP_IF_NONE_MATCH=tag).status_code == 200


def test_a_count_the_page_shows_changes_the_tag_though_its_rows_do_not(bookkeeper_client):
    moved_item("context")
    tag = bookkeeper_client.get(QUEUE)["ETag"]
    # A question still in the chat: not in the queue, but in the "waiting in the chat" count beside it.
    factories.make_item(channel_context=pending("open"))
    response = bookkeeper_client.get(QUEUE, HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 200
    assert 'data-state="waiting_in_chat">1<' in response.content.decode()


def test_another_users_tag_is_never_a_304(bookkeeper_client, anna):
    mine = moved_item("context")
    tag = bookkeeper_client.get(QUEUE)["ETag"]
    # Same companies, same list: still someone else's copy ("You are answering" differs).
    assert _client(anna).get(QUEUE, HTTP_IF_NONE_MATCH=tag).status_code == 200
    # Other companies: never bea's rows, whatever tag is sent.
    otto = factories.make_user(roles.BOOKKEEPER, username="otto")
    CompanyAssignment.objects.create(user=otto, company_id=factories.make_company().pk)
    response = _client(otto).get(QUEUE, HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 200
    assert str(mine.pk) not in response.content.decode()


def test_a_copy_from_before_the_last_login_is_sent_again(bookkeeper, bookkeeper_client):
    moved_item("context")
    tag = bookkeeper_client.get(QUEUE)["ETag"]
    # Its forms carry the old session's CSRF token.
    bookkeeper_client.logout()
    bookkeeper_client.force_login(bookkeeper)
    assert bookkeeper_client.get(QUEUE, HTTP_IF_NONE_MATCH=tag).status_code == 200


def test_another_list_or_representation_has_its_own_tag(bookkeeper_client):
    moved_item("context")
    tag = bookkeeper_client.get(QUEUE)["ETag"]
    assert bookkeeper_client.get(QUEUE + "&type=resend", HTTP_IF_NONE_MATCH=tag).status_code == 200
    # The whole page's tag is not the htmx part's.
    assert bookkeeper_client.get(QUEUE, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=tag).status_code == 200


def test_a_message_waiting_to_be_shown_is_never_hidden_by_a_304(bookkeeper_client):
    tag = bookkeeper_client.get(QUEUE)["ETag"]
    # "n" with nothing free: the list is to say so, and the copy in the browser does not.
    bookkeeper_client.get(reverse("next_free"))
    response = bookkeeper_client.get(QUEUE, HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 200
    assert "No free item is waiting for an answer." in response.content.decode()


def test_the_api_answers_conditional_requests(bookkeeper, anna):
    answered = moved_item("context")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {create_token(bookkeeper)}")
    first = client.get(API_QUEUE)
    assert first.status_code == 200
    tag = first["ETag"]
    assert client.get(API_QUEUE, HTTP_IF_NONE_MATCH=tag).status_code == 304
    assert "Authorization" in first["Vary"]

    _answer(_client(anna), answered)

    response = client.get(API_QUEUE, HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 200
    assert response["ETag"] != tag
    assert response.json()["results"] == []


def test_the_apis_tag_is_per_user(bookkeeper):
    moved_item("context")
    tag = Client(HTTP_AUTHORIZATION=f"Bearer {create_token(bookkeeper)}").get(API_QUEUE)["ETag"]
    otto = factories.make_user(roles.BOOKKEEPER, username="otto")
    CompanyAssignment.objects.create(user=otto, company_id=factories.make_company().pk)
    response = Client(HTTP_AUTHORIZATION=f"Bearer {create_token(otto)}").get(API_QUEUE, HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 200
    assert response.json()["results"] == []


# --- The 304's guarantees (its cost: tests/inbox/test_unchanged_poll.py; bench/README.md, "Idle open queues") ---


def _otto(company):  # type: ignore[no-untyped-def]
    """A bookkeeper assigned one company only: his list is scoped by his assignments, not a permission."""
    otto = factories.make_user(roles.BOOKKEEPER, username="otto")
    CompanyAssignment.objects.create(user=otto, company_id=company.pk)
    return otto


def test_a_signed_out_poll_goes_to_the_login_page_and_never_gets_a_304(bookkeeper, bookkeeper_client):
    moved_item("context")
    tag = _embedded_tag(bookkeeper_client.get(QUEUE).content.decode())
    bookkeeper_client.logout()
    response = _poll(bookkeeper_client, tag)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_poll_after_the_password_changed_elsewhere_goes_to_the_login_page(bookkeeper, bookkeeper_client):
    moved_item("context")
    tag = _embedded_tag(bookkeeper_client.get(QUEUE).content.decode())
    # Changed on another host (or by an administrator): this session's hash no longer matches.
    bookkeeper.set_password("an entirely new password 42")
    bookkeeper.save()
    response = _poll(bookkeeper_client, tag)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_poll_after_a_company_was_taken_away_is_sent_again_without_its_rows():
    kept, taken = factories.make_company(), factories.make_company()
    kept_item, taken_item = moved_item("context", company=kept), moved_item("context", company=taken)
    otto = _otto(kept)
    CompanyAssignment.objects.create(user=otto, company_id=taken.pk)
    client = _client(otto)
    page = client.get(QUEUE).content.decode()
    assert str(taken_item.pk) in page
    tag = _embedded_tag(page)
    assert _poll(client, tag).status_code == 304

    CompanyAssignment.objects.filter(user=otto, company_id=taken.pk).delete()

    response = _poll(client, tag)
    assert response.status_code == 200
    body = response.content.decode()
    assert f"row-{kept_item.pk}" in body
    assert str(taken_item.pk) not in body


def test_the_read_model_catching_up_again_changes_the_tag(bookkeeper_client):
    moved_item("context")
    SyncState.objects.update_or_create(pk=1, defaults={"last_poll_at": timezone.now() - dt.timedelta(days=1)})
    first = bookkeeper_client.get(QUEUE)
    assert "stale-banner" in first.content.decode()
    tag = first["ETag"]
    assert bookkeeper_client.get(QUEUE, HTTP_IF_NONE_MATCH=tag).status_code == 304
    # The sync ran: the page no longer says the list is old, so the copy is not kept.
    SyncState.objects.filter(pk=1).update(last_poll_at=timezone.now())
    response = bookkeeper_client.get(QUEUE, HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 200
    assert "stale-banner" not in response.content.decode()


def test_a_list_of_one_company_polls_too_and_its_page_keeps_the_company_menu(bookkeeper_client):
    company = factories.make_company(name="Tegelbruket AB")
    moved_item("context", company=company)
    url = f"{QUEUE}&company={company.pk}"
    page = bookkeeper_client.get(url)
    assert page.status_code == 200
    assert f'<option value="{company.pk}" selected>Tegelbruket AB</option>' in page.content.decode()
    assert bookkeeper_client.get(url, HTTP_IF_NONE_MATCH=page["ETag"]).status_code == 304
    # The whole queue (no company asked for) still offers the menu, read after the tag.
    assert "Tegelbruket AB</option>" in bookkeeper_client.get(QUEUE).content.decode()


@pytest.mark.parametrize(
    "query_string",
    [
        "state=needs_answer&sort=queue",
        "state=needs_answer&state=on_hold&state=needs_answer&type=resend&page=2&page_size=100",
        "state=on_hold&held_by_me=on",
        "state=nonsense&q=%E2%80%8FVolvo&received_from=2026-11-01&received_to=2026-10-01&photo=unread",
        "page=0&page_size=7&sort=sideways&held_by_me=",
    ],
)
def test_the_remembered_query_is_the_forms_own(bookkeeper, anna, query_string):
    # The poll's path reads the query string once per process; the page's path builds the form every time.
    # Both must mean the same list to each user, or the page's tag would never match the poll's.
    for user in (bookkeeper, anna, bookkeeper):
        params = QueryDict(query_string)
        assert remembered_list_query(params, user=user) == parse_list_query(params, user=user)


def test_held_by_me_is_each_users_own_list_through_the_remembered_query(bookkeeper, anna):
    params = QueryDict("state=on_hold&held_by_me=on")
    assert remembered_list_query(params, user=bookkeeper).held_by == bookkeeper.pk
    assert remembered_list_query(params, user=anna).held_by == anna.pk


def test_a_company_filter_is_left_to_the_form_and_its_menu(bookkeeper):
    company = factories.make_company()
    assert remembered_list_query(QueryDict(f"company={company.pk}"), user=bookkeeper) is None


def test_a_rows_version_moves_when_a_colleague_starts_answering_it(bookkeeper_client, anna):
    # The poll replaces only rows whose data-version moved (static/js/inbox.js): a version that never
    # moved would leave "anna is answering" unseen until a full reload.
    item = factories.make_item(channel_context=pending("moved_to_app"))

    def version() -> str:
        body = bookkeeper_client.get(reverse("inbox")).content.decode()
        (found,) = re.findall(rf'id="row-{item.pk}" data-version="([^"]*)"', body)
        return found

    before = version()
    reservations.reserve(item.pk, anna)
    after = version()
    assert after != before
    assert after.endswith(f"-{anna.pk}")
