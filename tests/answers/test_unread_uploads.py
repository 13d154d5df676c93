"""Unread uploads: a PDF's pages in its event; the fix-up of uploads written the old way."""

from __future__ import annotations

import datetime as dt
import io
import uuid
import zlib
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from reviewapp.answers.unread import mark_unread, old_uploads
from reviewapp.answers.uploads import MAX_INFLATED_BYTES, pdf_page_count
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem, ProcessingHistory
from reviewapp.models import ClarificationEvent
from reviewapp.web.landing import all_items_url
from tests import factories
from tests.answers.conftest import ASKED_AT, answer_url, item_url, moved_item, png_bytes
from tests.answers.test_answer_contract import ACCOUNTED_EMPTY_RESULT
from tests.html import Page
from tests.items.bookkeeping import make_document

pytestmark = pytest.mark.django_db

# accounted's emptyResult() as its sweep wrote it before the newer fields (extract-invoice-fields.ts at 8c84952).
OLDER_EMPTY_RESULT = {
    "supplier": {
        "name": None,
        "orgNumber": None,
        "vatNumber": None,
        "address": None,
        "bankgiro": None,
        "plusgiro": None,
    },
    "invoice": {
        "invoiceNumber": None,
        "invoiceDate": None,
        "dueDate": None,
        "paymentReference": None,
        "currency": "SEK",
    },
    "lineItems": [],
    "totals": {"subtotal": None, "vatAmount": None, "total": None},
    "vatBreakdown": [],
    "confidence": 0,
}


def _pdf(*objects: bytes) -> bytes:
    body = b"\n".join(objects)
    return b"%PDF-1.7\n" + body + b"\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"


TWO_PAGES = _pdf(
    b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj",
    b"2 0 obj\n<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>\nendobj",
    b"3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj",
    b"4 0 obj\n<< /Type/Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj",
)


def _three_pages_in_an_object_stream() -> bytes:
    inside = b"3 0 4 60 5 120 " + b"<< /Type /Page /Parent 2 0 R >> " * 3
    packed = zlib.compress(inside)
    return _pdf(
        b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj",
        b"2 0 obj\n<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>\nendobj",
        b"6 0 obj\n<< /Type /ObjStm /N 3 /First 15 /Filter /FlateDecode /Length %d >>\nstream\n" % len(packed)
        + packed
        + b"\nendstream\nendobj",
    )


def _object_stream(number: int, inside: bytes) -> bytes:
    packed = zlib.compress(inside)
    return (
        b"%d 0 obj\n<< /Type /ObjStm /N 3 /First 15 /Filter /FlateDecode /Length %d >>\nstream\n"
        % (number, len(packed))
        + packed
        + b"\nendstream\nendobj"
    )


def test_pages_in_an_object_stream_after_another_stream_are_counted():
    # A page's content stream (not an object stream) comes first, as writers put them.
    content = b"BT /F1 12 Tf (Kvitto) Tj ET"
    pdf = _pdf(
        b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj",
        b"2 0 obj\n<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>\nendobj",
        b"7 0 obj\n<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream\nendobj",
        _object_stream(6, b"3 0 4 60 5 120 " + b"<< /Type /Page /Parent 2 0 R >> " * 3),
    )
    assert pdf_page_count(pdf) == 3


def test_object_streams_share_one_inflation_budget():
    # Each inflates to under the budget, together to over it: not read (no count), as one too large.
    half = b" " * (MAX_INFLATED_BYTES // 2 + 1)
    pdf = _pdf(
        b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj",
        b"3 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj",
        _object_stream(6, half),
        _object_stream(7, half),
    )
    assert pdf_page_count(pdf) is None
    assert pdf_page_count(pdf.replace(_object_stream(7, half), b"")) == 1


def _post_upload(client: Any, item: InboxItem, name: str, content: bytes) -> Any:
    upload = io.BytesIO(content)
    upload.name = name
    return client.post(answer_url(item), {"question": "resend", "choice": "upload", "file": upload})


@pytest.mark.parametrize(("content", "pages"), [(TWO_PAGES, 2), (_three_pages_in_an_object_stream(), 3)])
def test_an_uploaded_pdf_records_its_page_count_as_accounted_does(bookkeeper_client, documents_bucket, content, pages):
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    assert _post_upload(bookkeeper_client, item, "kvitto.pdf", content).status_code == 302
    attempted = ProcessingHistory.objects.get(event_type="DocumentExtractionAttempted")
    assert attempted.payload["page_count"] == pages
    assert attempted.payload["skipped"] is True


# --- Uploads written the old way --------------------------------------------------------------


def _old_way_upload(*, swept_to: dict[str, Any] | None = None, file_name: str = "kvitto.png") -> InboxItem:
    """An upload as the app wrote it before: 'processing', nothing read, and the app's log of it.

    ``swept_to``: accounted's sweep has since made it 'received' with this ``extracted_data``.
    """
    old = moved_item("resend", quality={"resend_requested_at": ASKED_AT, "resent": True, "superseded": True})
    mime = "application/pdf" if file_name.endswith(".pdf") else "image/png"
    document = make_document(
        old.company, content=TWO_PAGES if mime == "application/pdf" else b"png", file_name=file_name, mime_type=mime
    )
    DocumentAttachment.objects.filter(pk=document.pk).update(upload_source="file_upload")
    new = InboxItem.objects.create(
        user_id=old.user_id,
        company=old.company,
        status="processing" if swept_to is None else "received",
        source="upload",
        document=document,
        correlation_id=uuid.uuid4(),
        extracted_data=swept_to,
        extraction_skipped=False,
    )
    ClarificationEvent.objects.create(
        item_id=old.pk,
        event_type=ClarificationEvent.ANSWERED,
        question_type="resend",
        actor_label="bea",
        channel=ClarificationEvent.Channel.APP,
        payload={"resend": {"choice": "upload", "new_item_id": str(new.pk), "document_id": str(document.pk)}},
        occurred_at=timezone.now() - dt.timedelta(days=2),
    )
    return new


def _accounted_own_upload() -> InboxItem:
    """A 'processing' row accounted's own web upload wrote (its worker is still running): not the app's."""
    old = moved_item("resend")
    document = make_document(old.company, content=b"own", upload_source="file_upload")
    return InboxItem.objects.create(
        user_id=old.user_id,
        company=old.company,
        status="processing",
        source="upload",
        document=document,
        extracted_data=None,
        extraction_skipped=False,
    )


def _row(item: InboxItem) -> tuple[Any, ...]:
    item.refresh_from_db()
    return (item.status, item.extracted_data, item.extraction_skipped)


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command("fix_unread_uploads", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def old_rows(documents_bucket) -> dict[str, InboxItem]:  # type: ignore[no-untyped-def]
    read_since = _old_way_upload(swept_to={**OLDER_EMPTY_RESULT, "totals": {"total": 250.0}})
    retried = _old_way_upload(swept_to=OLDER_EMPTY_RESULT)
    ProcessingHistory.objects.create(
        company_id=retried.company_id,
        correlation_id=retried.correlation_id,
        aggregate_type="Document",
        aggregate_id=retried.document_id,
        event_type="DocumentExtractionRetried",
        payload={"document_id": str(retried.document_id), "inbox_item_id": str(retried.pk)},
        actor={"type": "user", "id": str(retried.user_id)},
        occurred_at=timezone.now(),
    )
    return {
        "processing": _old_way_upload(file_name="kvitto.pdf"),
        "swept": _old_way_upload(swept_to=OLDER_EMPTY_RESULT),
        "swept_newer": _old_way_upload(swept_to=ACCOUNTED_EMPTY_RESULT),
        "accounted_own": _accounted_own_upload(),
        "read_since": read_since,
        "retried": retried,
    }


def test_the_dry_run_lists_the_apps_unread_uploads_and_writes_nothing(old_rows):
    before = {key: _row(item) for key, item in old_rows.items()}
    events = ProcessingHistory.objects.count()

    out = _run("--dry-run")

    for key in ("processing", "swept", "swept_newer"):
        assert f"would mark item {old_rows[key].pk}" in out
    for key in ("accounted_own", "read_since", "retried"):
        assert str(old_rows[key].pk) not in out
    assert "3 uploaded item(s) would be marked" in out
    assert {key: _row(item) for key, item in old_rows.items()} == before
    assert ProcessingHistory.objects.count() == events
    assert not ClarificationEvent.objects.filter(event_type="UploadMarkedUnread").exists()


def test_the_fix_marks_each_as_accounted_marks_an_unread_item_and_logs_it(old_rows):
    untouched = {key: _row(old_rows[key]) for key in ("accounted_own", "read_since", "retried")}

    out = _run()

    assert "3 uploaded item(s) marked" in out
    for key in ("processing", "swept", "swept_newer"):
        item = old_rows[key]
        assert _row(item) == ("received", ACCOUNTED_EMPTY_RESULT, True)
        document = DocumentAttachment.objects.get(pk=item.document_id)
        assert (document.extracted_data, document.extraction_model) == (None, "skipped:client_opt_out")
        assert document.extracted_at is not None
        attempted = ProcessingHistory.objects.get(event_type="DocumentExtractionAttempted", aggregate_id=document.pk)
        assert attempted.actor == {"type": "system", "id": "review-app"}
        assert attempted.correlation_id == item.correlation_id
        assert attempted.payload == {
            "document_id": str(document.pk),
            "inbox_item_id": str(item.pk),
            "succeeded": False,
            "extracted_total": None,
            "has_org_number": False,
            "has_ocr": False,
            "skipped": True,
            "skip_reason": "client_opt_out",
            "page_count": 2 if key == "processing" else None,
        }
        logged = ClarificationEvent.objects.get(event_type="UploadMarkedUnread", item_id=item.pk)
        # The row as it was is kept in the app's log before anything is changed.
        assert logged.payload["before"]["status"] == ("processing" if key == "processing" else "received")
        assert logged.payload["history_event_id"] == str(attempted.pk)
        # ... and the row and the document as they were written.
        assert logged.payload["document_id"] == str(document.pk)
        assert logged.payload["after"] == {
            "status": "received",
            "extracted_data": ACCOUNTED_EMPTY_RESULT,
            "extraction_skipped": True,
            "document": {"extracted_data": None, "extraction_model": "skipped:client_opt_out"},
        }
    assert {key: _row(old_rows[key]) for key in untouched} == untouched
    assert not ProcessingHistory.objects.filter(
        event_type="DocumentExtractionAttempted", aggregate_id=old_rows["accounted_own"].document_id
    ).exists()

    # Once fixed, nothing is left: a second run changes nothing.
    assert "0 uploaded item(s) marked" in _run()
    assert ProcessingHistory.objects.filter(event_type="DocumentExtractionAttempted").count() == 3


# --- What the bookkeeper is told --------------------------------------------------------------

ACCOUNTED = "https://app.example.se"


def _uploaded(bookkeeper_client: Any) -> tuple[InboxItem, InboxItem, Any]:
    item = moved_item("resend", quality={"resend_requested_at": ASKED_AT})
    response = _post_upload(bookkeeper_client, item, "skarpare.png", png_bytes())
    assert response.status_code == 302
    new = InboxItem.objects.exclude(pk=item.pk).get(company_id=item.company_id)
    return item, new, response


def _after_the_outcome(bookkeeper_client: Any) -> tuple[InboxItem, InboxItem]:
    """An upload, and the page its outcome was shown on (so later pages show no message)."""
    item, new, response = _uploaded(bookkeeper_client)
    bookkeeper_client.get(response["Location"])
    return item, new


@pytest.mark.parametrize("base_url", ["", ACCOUNTED])
def test_the_uploads_outcome_says_accounted_has_not_read_the_photo_and_how_to_have_it_read(
    bookkeeper_client, documents_bucket, settings, base_url
):
    settings.ACCOUNTED_BASE_URL = base_url
    _item, new, response = _uploaded(bookkeeper_client)

    page = Page(bookkeeper_client.get(response["Location"]).content.decode())
    warning = " ".join(page.texts(cls="message-warning"))
    assert "Tolka om" in warning
    assert str(new.pk)[:8] in warning
    links = [tag.get("href") for tag in page.with_attribute("data-accounted-link")]
    assert links == ([f"{ACCOUNTED}/e/general/invoice-inbox"] if base_url else [])


def test_the_new_items_page_says_accounted_has_not_read_it_and_the_old_ones_does_not(
    bookkeeper_client, documents_bucket, settings
):
    settings.ACCOUNTED_BASE_URL = ACCOUNTED
    item, new = _after_the_outcome(bookkeeper_client)

    new_page = Page(bookkeeper_client.get(item_url(new)).content.decode())
    assert "Tolka om" in new_page.text("not-read-by-accounted")
    assert [tag.get("href") for tag in new_page.with_attribute("data-accounted-link")] == [
        f"{ACCOUNTED}/e/general/invoice-inbox"
    ]
    old_page = Page(bookkeeper_client.get(item_url(item)).content.decode())
    assert not old_page.has("not-read-by-accounted")


def test_the_list_marks_the_unread_photo_and_its_filter_finds_only_such_items(bookkeeper_client, documents_bucket):
    item, new = _after_the_outcome(bookkeeper_client)
    read_by_accounted = factories.make_item(item.company)

    everything = Page(bookkeeper_client.get(all_items_url()).content.decode())
    marked = {tag.get("data-item") for tag in everything.with_attribute("data-unread")}
    assert marked == {str(new.pk)}

    only_unread = Page(bookkeeper_client.get(all_items_url() + "&photo=unread").content.decode())
    assert _listed(only_unread) == {str(new.pk)}
    assert _listed(everything) >= {str(new.pk), str(item.pk), str(read_by_accounted.pk)}


def _listed(page: Page) -> set[str]:
    """The item ids of the list's rows (their links to the item page)."""
    hrefs = [tag.get("href") or "" for tag in page.tags("a") if "row-link" in (tag.get("class") or "").split()]
    return {href.split("/items/")[1].split("/")[0] for href in hrefs}


@pytest.mark.parametrize(
    "read_since",
    [{"status": "received"}, {"extracted_data": {"totals": {"total": 250.0}}}],
    ids=["moved on", "fields read"],
)
def test_an_upload_read_after_it_was_listed_is_left_alone_and_not_counted(old_rows, read_since):
    (listed,) = [upload for upload in old_uploads() if upload.item_id == old_rows["processing"].pk]
    # accounted's worker reads it between the listing and the write.
    InboxItem.objects.filter(pk=listed.item_id).update(**read_since)
    before = _row(old_rows["processing"])

    assert mark_unread(listed, now=timezone.now(), actor={"type": "system", "id": "review-app"}) is False
    assert _row(old_rows["processing"]) == before
    assert not ClarificationEvent.objects.filter(event_type="UploadMarkedUnread").exists()
