"""Notes for colleagues (issue 38 part 2): plain text in the item's history, editable by its author for
10 minutes and never after, found by Support's search, per company."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from reviewapp.core import roles
from reviewapp.items import notes
from reviewapp.models import ItemNote
from tests import factories

pytestmark = pytest.mark.django_db


def _post(client: Client, item_id, text: str):  # type: ignore[no-untyped-def]
    return client.post(reverse("api_item_notes", args=[item_id]), {"text": text}, content_type="application/json")


def test_a_note_is_in_the_items_history_with_its_author_escaped(bookkeeper_client, support_client, company):
    item = factories.make_item(company=company)
    response = _post(bookkeeper_client, item.pk, "Ring <script>alert(1)</script> Lisa")
    assert response.status_code == 201
    created = response.json()
    assert (created["text"], created["by"]) == ("Ring <script>alert(1)</script> Lisa", "bea")
    assert set(created) >= {"id", "text", "by", "at"}
    assert _post(support_client, item.pk, "Kunden har mejlat").status_code == 201
    detail = support_client.get(reverse("api_item", args=[item.pk])).json()
    assert [(n["text"], n["by"]) for n in detail["team_notes"]] == [
        ("Ring <script>alert(1)</script> Lisa", "bea"),
        ("Kunden har mejlat", "sven"),
    ]
    page = support_client.get(reverse("item_detail", args=[item.pk])).content.decode()
    assert "Ring &lt;script&gt;alert(1)&lt;/script&gt; Lisa" in page
    assert "<script>alert(1)" not in page
    assert "Kunden har mejlat" in page


def test_bad_notes_are_refused(bookkeeper_client, company):
    item = factories.make_item(company=company)
    response = _post(bookkeeper_client, item.pk, "abc\u202edef")
    assert response.status_code == 400
    assert "text direction control" in response.json()["errors"]["text"][0]
    assert _post(bookkeeper_client, item.pk, "x" * 2001).status_code == 400
    assert _post(bookkeeper_client, item.pk, "   ").status_code == 400
    assert _post(bookkeeper_client, item.pk, "x" * 2000).status_code == 201
    assert ItemNote.objects.count() == 1


def test_another_companys_item_is_a_404_and_qa_may_not_write(qa_client, company):
    item = factories.make_item(company=company)
    outsider = factories.make_user(roles.BOOKKEEPER, username="cecilia")  # assigned no company
    client = Client()
    client.force_login(outsider)
    assert _post(client, item.pk, "hej").status_code == 404
    assert client.post(reverse("item_note_add", args=[item.pk]), {"text": "hej"}).status_code == 404
    assert _post(qa_client, item.pk, "hej").status_code == 403
    assert not ItemNote.objects.exists()


def test_the_author_may_edit_for_ten_minutes_and_never_after(bookkeeper, support, company):
    item = factories.make_item(company=company)
    written = timezone.now()
    note = notes.add_note(item.pk, company.pk, bookkeeper, "Första", now=written)
    just_inside = written + notes.EDIT_WINDOW - dt.timedelta(microseconds=1)
    notes.edit_note(note, bookkeeper, "Rättad", now=just_inside)
    assert ItemNote.objects.get(pk=note.pk).text == "Rättad"
    with pytest.raises(notes.NoteLocked):
        notes.edit_note(note, bookkeeper, "För sent", now=written + notes.EDIT_WINDOW)
    with pytest.raises(notes.NoteLocked):
        notes.edit_note(note, support, "Någon annans", now=written + dt.timedelta(minutes=1))
    assert ItemNote.objects.get(pk=note.pk).text == "Rättad"


def test_editing_through_the_api_after_ten_minutes_is_refused(bookkeeper_client, bookkeeper, company):
    item = factories.make_item(company=company)
    created = _post(bookkeeper_client, item.pk, "Första").json()
    url = reverse("api_item_note", args=[item.pk, created["id"]])
    assert bookkeeper_client.patch(url, {"text": "Rättad"}, content_type="application/json").status_code == 200
    ItemNote.objects.filter(pk=created["id"]).update(created_at=timezone.now() - notes.EDIT_WINDOW)
    assert bookkeeper_client.patch(url, {"text": "Sent"}, content_type="application/json").status_code == 403
    assert ItemNote.objects.get(pk=created["id"]).text == "Rättad"


def test_supports_search_finds_an_item_by_its_note_and_says_so(support_client, bookkeeper, company):
    found = factories.make_item(company=company)
    factories.make_item(company=company)
    notes.add_note(found.pk, company.pk, bookkeeper, "Kunden ringer tillbaka på tisdag")
    data = support_client.get(reverse("api_items") + "?q=TISDAG").json()
    assert [row["id"] for row in data["results"]] == [str(found.pk)]
    body = support_client.get(reverse("inbox") + "?q=tisdag").content.decode()
    assert "Team note:</span>" in body
    assert "<mark>tisdag</mark>" in body


def test_the_search_does_not_reach_another_companys_notes(company):
    other = factories.make_company()
    item = factories.make_item(company=other)
    author = factories.make_user(roles.SUPPORT, username="sven")
    notes.add_note(item.pk, other.pk, author, "hemlig anteckning")
    outsider = factories.make_user(roles.BOOKKEEPER, username="cecilia")
    client = Client()
    client.force_login(outsider)
    assert client.get(reverse("api_items") + "?q=hemlig").json()["results"] == []
