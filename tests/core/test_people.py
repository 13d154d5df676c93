"""One name per person: the full name, else the username, in the list, the answer panel and the history."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviewapp.core import roles
from reviewapp.core.people import person_name
from reviewapp.inbox import reservations
from tests import factories
from tests.answers.conftest import answer_url, moved_item
from tests.html import Page
from tests.inbox.helpers import pending

pytestmark = pytest.mark.django_db


def test_a_person_is_named_by_full_name_else_by_username():
    assert person_name(factories.make_user(username="anna", first_name="Anna", last_name="Lind")) == "Anna Lind"
    assert person_name(factories.make_user(username="karin", first_name="Karin")) == "Karin"
    assert person_name(factories.make_user(username="bokforare")) == "bokforare"


def test_the_list_names_who_is_answering_by_full_name(bookkeeper_client):
    anna = factories.make_user(roles.BOOKKEEPER, username="anna", first_name="Anna", last_name="Lind")
    karin = factories.make_user(roles.BOOKKEEPER, username="karin")
    by_anna = factories.make_item(channel_context=pending("moved_to_app"))
    by_karin = factories.make_item(channel_context=pending("moved_to_app"))
    reservations.reserve(by_anna.id, anna)
    reservations.reserve(by_karin.id, karin)
    body = bookkeeper_client.get(reverse("inbox")).content.decode()
    assert "Anna Lind is answering" in body
    assert "anna is answering" not in body
    assert "karin is answering" in body


def test_the_answered_panel_and_the_history_name_the_bookkeeper_by_full_name(bookkeeper, bookkeeper_client):
    bookkeeper.first_name, bookkeeper.last_name = "Bea", "Bokförare"
    bookkeeper.save()
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi till kund"})
    page = Page(bookkeeper_client.get(reverse("item_detail", args=[item.pk])).content.decode())
    assert "Answered in the app by Bea Bokförare" in page.text("answer-answered")
    assert "Bea Bokförare" in page.text("history")
