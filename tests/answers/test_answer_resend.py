"""The resend question through the answer form: readable after all, a newer item, a sharper file uploaded."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import pytest
from django.utils import timezone

from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem, ProcessingHistory
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.answers.conftest import ASKED_AT, HTMX, answer_url, item_url, moved_item, png_bytes, stored_context
from tests.html import Page
from tests.items.bookkeeping import make_document

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
    # accounted has not read it, and the row says so (reviewapp.answers.unread).
    assert new.status == "received"
    assert new.extraction_skipped is True
    assert new.channel_context is None
    document = DocumentAttachment.objects.get(pk=new.document_id)
    assert document.file_name == "skarpare.png"
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
    newer = factories.make_item(company=item.company, extracted_data=item.extracted_data)
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


# --- A file the company already has -------------------------------------------------------------


def _upload(name: str, content: bytes) -> io.BytesIO:
    upload = io.BytesIO(content)
    upload.name = name
    return upload


def _received_later(newer: InboxItem, than: InboxItem) -> None:
    InboxItem.objects.filter(pk=newer.pk).update(created_at=than.created_at + dt.timedelta(minutes=1))
    newer.refresh_from_db()


def _holding(item: InboxItem, content: bytes, **extra: Any) -> InboxItem:
    """Another item of ``item``'s company whose document has these bytes."""
    document = make_document(item.company, content=content)
    return factories.make_item(item.company, document=document, **extra)


def _files(bucket: Any) -> list[Any]:
    return [path for path in bucket.rglob("*") if path.is_file()]


def test_a_file_the_company_already_has_is_not_stored_and_the_page_names_the_item_holding_it(
    bookkeeper_client, documents_bucket
):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    content = png_bytes()
    holder = _holding(item, content, extracted_data={"supplier": {"name": "Bränsle <b>AB</b>"}})
    _received_later(holder, item)
    stored_before = _files(documents_bucket)

    response = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "upload", "file": _upload("igen.png", content)}, **HTMX
    )

    assert response.status_code == 200
    page = Page(response.content.decode())
    assert f"already in the bookkeeping as item {holder.pk}" in page.text("id_file_error")
    info = page.text("resend-duplicate-info")
    assert str(holder.pk) in info
    assert "Bränsle <b>AB</b>" in info  # the supplier's name as text, escaped
    assert "<b>AB</b>" not in response.content.decode()
    # The page gives the day in Stockholm, which is not the UTC day for an hour or two before midnight.
    assert timezone.localtime(holder.created_at).strftime("%Y-%m-%d") in info
    assert f'href="{item_url(holder)}"' in response.content.decode()
    assert 'form="resend-duplicate"' in response.content.decode()
    # Nothing written: no second copy, no document, no item, no event; the question still waits.
    assert _files(documents_bucket) == stored_before
    assert DocumentAttachment.objects.count() == 1
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 2
    assert not ProcessingHistory.objects.exists()
    assert stored_context(item)["pending_question"]["status"] == "moved_to_app"


def test_the_offered_button_settles_the_question_as_replaced_by_the_item_holding_the_file(
    bookkeeper_client, documents_bucket
):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    holder = _holding(item, png_bytes(), extracted_data=item.extracted_data)
    _received_later(holder, item)
    offered = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "upload", "file": _upload("igen.png", png_bytes())}
    )
    # The hidden form the button submits, posted as the browser would.
    form = Page(offered.content.decode()).form("resend-duplicate")
    assert ["data-resend-duplicate" in button for button in form.submit_buttons] == [True]
    fields = dict(form.fields)
    assert fields["choice"] == "replaced"
    assert fields["replaced_by"] == str(holder.pk)

    response = bookkeeper_client.post(answer_url(item), fields)

    assert response.status_code == 302
    assert stored_context(item)["quality"] == {"resend_requested_at": ASKED_AT, "resent": True, "superseded": True}
    event = ClarificationEvent.objects.get(item_id=item.pk)
    assert event.payload["resend"]["choice"] == "replaced"
    assert event.payload["resend"]["new_item_id"] == str(holder.pk)
    assert DocumentAttachment.objects.count() == 1


def test_an_older_item_holding_the_file_is_not_offered_as_the_replacement_and_the_page_says_why(
    bookkeeper_client, documents_bucket
):
    item = moved_item("resend")
    older = _holding(item, png_bytes())
    _received_later(item, older)

    response = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "upload", "file": _upload("igen.png", png_bytes())}, **HTMX
    )

    page = Page(response.content.decode())
    assert str(older.pk) in page.text("id_file_error")
    assert "older than this one; only a newer item replaces it" in page.text("resend-duplicate-problem")
    assert 'form="resend-duplicate"' not in response.content.decode()
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 2


def test_uploading_the_items_own_blurry_file_again_stores_nothing(bookkeeper_client, documents_bucket):
    content = png_bytes()
    item = moved_item("resend")
    InboxItem.objects.filter(pk=item.pk).update(document=make_document(item.company, content=content))
    response = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "upload", "file": _upload("igen.png", content)}, **HTMX
    )
    assert "the very file this item already holds" in Page(response.content.decode()).text("id_file_error")
    assert DocumentAttachment.objects.count() == 1
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1


def test_the_same_file_uploaded_for_two_questions_is_stored_once(bookkeeper_client, documents_bucket):
    first = moved_item("resend")
    second = moved_item("resend", company=first.company)
    content = png_bytes()
    assert (
        bookkeeper_client.post(
            answer_url(first), {"question": "resend", "choice": "upload", "file": _upload("a.png", content)}
        ).status_code
        == 302
    )
    made = InboxItem.objects.exclude(pk__in=[first.pk, second.pk]).get()

    response = bookkeeper_client.post(
        answer_url(second), {"question": "resend", "choice": "upload", "file": _upload("b.png", content)}, **HTMX
    )

    assert str(made.pk) in Page(response.content.decode()).text("id_file_error")
    assert DocumentAttachment.objects.count() == 1
    assert len(_files(documents_bucket)) == 1
    assert ProcessingHistory.objects.filter(event_type="DocumentIngested").count() == 1


def test_a_file_the_company_has_outside_the_inbox_gets_a_new_item_for_that_document_and_no_copy(
    bookkeeper_client, documents_bucket
):
    item = moved_item("resend")
    content = png_bytes()
    archived = make_document(item.company, content=content, upload_source="api")
    files_before = _files(documents_bucket)

    response = bookkeeper_client.post(
        answer_url(item), {"question": "resend", "choice": "upload", "file": _upload("kvitto.png", content)}
    )

    assert response.status_code == 302
    new = InboxItem.objects.exclude(pk=item.pk).get(company_id=item.company_id)
    assert new.document_id == archived.pk
    assert (new.status, new.extraction_skipped) == ("received", True)
    archived.refresh_from_db()
    assert archived.extraction_model == "skipped:client_opt_out"
    assert DocumentAttachment.objects.count() == 1
    assert _files(documents_bucket) == files_before
    ingested = ProcessingHistory.objects.get(event_type="DocumentIngested")
    assert (ingested.aggregate_id, ingested.correlation_id) == (archived.pk, new.correlation_id)
