"""The resend question through the answer form: readable after all, a newer item, a sharper file uploaded."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import pytest

from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.answers.conftest import ASKED_AT, HTMX, answer_url, moved_item, png_bytes, stored_context
from tests.html import Page

pytestmark = pytest.mark.django_db


def test_declaring_the_document_readable_settles_the_resend_question(bookkeeper_client):
    item = moved_item("resend", quality={"blur_score": 0.7, "resend_requested_at": ASKED_AT})
    response = bookkeeper_client.post(answer_url(item), {"question": "resend", "choice": "readable"})
    assert response.status_code == 302
    ctx = stored_context(item)
    assert ctx["quality"] == {"blur_score": 0.7, "resend_requested_at": ASKED_AT}
    assert ctx["pending_question"]["status"] == "answered"
    assert ClarificationEvent.objects.get(item_id=item.pk).payload["resend"]["choice"] == "readable"
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1


def test_uploading_a_sharper_file_makes_a_new_item_and_supersedes_the_old(bookkeeper_client, documents_bucket):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    upload = io.BytesIO(png_bytes())
    upload.name = "skarpare.png"
    response = bookkeeper_client.post(answer_url(item), {"question": "resend", "choice": "upload", "file": upload})
    assert response.status_code == 302
    new = InboxItem.objects.exclude(pk=item.pk).get(company_id=item.company_id)
    assert new.source == "upload"
    assert new.status == "received"
    assert new.channel_context is None
    document = DocumentAttachment.objects.get(pk=new.document_id)
    assert (documents_bucket / document.storage_path).read_bytes() == png_bytes()
    ctx = stored_context(item)
    assert ctx["quality"] == {"resend_requested_at": ASKED_AT, "resent": True, "superseded": True}
    assert ctx["pending_question"]["status"] == "answered"
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert event.payload["resend"]["choice"] == "upload"
    assert event.payload["resend"]["new_item_id"] == str(new.pk)
    # Both pages show the link.
    old_page = Page(bookkeeper_client.get(answer_url(item)).content.decode())
    assert str(new.pk) in old_page.text("resend-links")
    new_page = Page(bookkeeper_client.get(answer_url(new)).content.decode())
    assert str(item.pk) in new_page.text("resend-links")


def test_naming_the_newer_item_supersedes_the_old_one(bookkeeper_client):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    newer = factories.make_item(company=item.company)
    InboxItem.objects.filter(pk=newer.pk).update(created_at=item.created_at + dt.timedelta(minutes=1))
    data = {"question": "resend", "choice": "replaced", "replaced_by": f"  {newer.pk}  "}
    response = bookkeeper_client.post(answer_url(item), data)
    assert response.status_code == 302
    assert stored_context(item)["quality"] == {"resend_requested_at": ASKED_AT, "resent": True, "superseded": True}
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 2


def test_naming_no_item_is_a_message_under_the_field(bookkeeper_client):
    item = moved_item("resend")
    response = bookkeeper_client.post(answer_url(item), {"question": "resend", "choice": "replaced"}, **HTMX)
    assert Page(response.content.decode()).has("id_replaced_by_error")
    response = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "replaced", "replaced_by": str(item.pk)}, **HTMX
    )
    assert "cannot replace itself" in Page(response.content.decode()).text("id_replaced_by_error")
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_a_file_that_only_claims_to_be_an_image_is_refused(bookkeeper_client):
    item = moved_item("resend")
    upload = io.BytesIO(b"<html><script>alert(1)</script></html>")
    upload.name = "kvitto.png"
    response = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "upload", "file": upload}, **HTMX
    )
    assert response.status_code == 200
    assert "JPEG, PNG or PDF" in Page(response.content.decode()).text("id_file_error")
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_a_file_over_the_size_limit_is_refused(bookkeeper_client, settings):
    settings.RECEIPT_UPLOAD_MAX_BYTES = 50
    item = moved_item("resend")
    upload = io.BytesIO(png_bytes() + b"\0" * 100)
    upload.name = "stor.png"
    response = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "upload", "file": upload}, **HTMX
    )
    assert "the limit is" in Page(response.content.decode()).text("id_file_error")
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1


def test_upload_chosen_without_a_file_is_refused(bookkeeper_client):
    item = moved_item("resend")
    response = bookkeeper_client.post(answer_url(item), {"question": "resend", "choice": "upload"}, **HTMX)
    assert Page(response.content.decode()).has("id_file_error")
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_an_upload_whose_write_fails_leaves_no_file_and_no_item(bookkeeper_client, monkeypatch, documents_bucket):
    from reviewapp.answers import writing

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("database went away")

    item = moved_item("resend")
    monkeypatch.setattr(writing, "append_question_event", broken)
    upload = io.BytesIO(png_bytes())
    upload.name = "skarpare.png"
    with pytest.raises(RuntimeError):
        bookkeeper_client.post(answer_url(item), {"question": "resend", "choice": "upload", "file": upload})
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"
    assert not [path for path in documents_bucket.rglob("*") if path.is_file()]
