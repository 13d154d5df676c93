"""The item page: /items/<uuid>/."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from reviewapp import index, roles
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.items.bookkeeping import (
    PNG,
    accounted_event,
    app_event,
    at,
    book,
    item_with_document,
    link_transaction,
    make_document,
    make_message,
    make_phone_link,
    whatsapp_item,
)
from tests.items.html import page_of

ASKED_AT = "2026-08-01T09:00:00Z"  # 11:00 in Stockholm (CEST)
CRON = {"type": "cron", "id": "whatsapp-question-expiry"}


def url(item: InboxItem, query: str = "") -> str:
    return reverse("item_detail", args=[item.pk]) + (f"?{query}" if query else "")


# --- Access -----------------------------------------------------------------


@pytest.mark.parametrize("client_fixture", ["bookkeeper_client", "support_client", "qa_client"])
def test_every_role_may_open_an_item(request, client_fixture, company):
    item = factories.make_item(company, extracted_data={"supplier": {"name": "Restaurang Prinsen"}})

    response = request.getfixturevalue(client_fixture).get(url(item))

    assert response.status_code == 200
    assert "<h1>Restaurang Prinsen</h1>" in response.content.decode()


def test_it_refuses_a_user_without_a_role(client, company):
    item = factories.make_item(company)
    client.force_login(factories.make_user())

    assert client.get(url(item)).status_code == 403


def test_it_sends_anonymous_visitors_to_the_login_page(client, company):
    item = factories.make_item(company)

    response = client.get(url(item))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_missing_item_is_a_404_page(bookkeeper_client):
    response = bookkeeper_client.get(reverse("item_detail", args=[uuid.uuid4()]))

    assert response.status_code == 404


def test_it_refuses_post(bookkeeper_client, company):
    item = factories.make_item(company)

    assert bookkeeper_client.post(url(item)).status_code == 405


# --- Header and document -------------------------------------------------------


def test_the_header_shows_supplier_amounts_date_company_and_source(bookkeeper_client, company):
    item = factories.make_item(
        company,
        source="whatsapp",
        extracted_data={
            "supplier": {"name": "Operakällaren"},
            "invoice": {"invoiceDate": "2026-07-30", "currency": "EUR"},
            "totals": {"total": 1234.5, "vatAmount": 132.27},
        },
    )

    body = bookkeeper_client.get(url(item)).content.decode()

    assert "1,234.50 EUR" in body
    assert "132.27 EUR" in body
    assert "2026-07-30" in body
    assert company.name in body
    assert "<dd>whatsapp</dd>" in body


def test_an_image_receipt_is_shown_inline(bookkeeper_client, company):
    item = item_with_document(company, PNG)

    page = page_of(bookkeeper_client.get(url(item)))

    document_url = reverse("item_document", args=[item.pk])
    assert [img["src"] for img in page.tags("img")] == [document_url]


def test_a_pdf_receipt_is_embedded_and_linked(bookkeeper_client, company):
    item = item_with_document(company, b"%PDF-1.4\n", file_name="kvitto.pdf", mime_type="application/pdf")

    page = page_of(bookkeeper_client.get(url(item)))

    document_url = reverse("item_document", args=[item.pk])
    assert [frame["src"] for frame in page.tags("iframe")] == [document_url]
    assert document_url in [a["href"] for a in page.tags("a")]


def test_a_document_of_another_type_is_only_linked_for_download(bookkeeper_client, company):
    item = item_with_document(company, b"PK\x03\x04", file_name="kvitto.zip", mime_type="application/zip")

    response = bookkeeper_client.get(url(item))

    page = page_of(response)
    assert page.tags("img") == []
    assert page.tags("iframe") == []
    document_url = reverse("item_document", args=[item.pk])
    assert f'<a href="{document_url}">Download the document</a>' in response.content.decode()


def test_the_page_shows_the_documents_id_and_file_name(bookkeeper_client, company):
    item = item_with_document(company, PNG, file_name="IMG_2041.png")

    facts = " ".join(page_of(bookkeeper_client.get(url(item))).text("document-facts").split())

    assert facts == f"{item.document_id} IMG_2041.png"


def test_an_item_without_a_document_says_so_and_shows_no_receipt(bookkeeper_client, company):
    item = factories.make_item(company)

    page = page_of(bookkeeper_client.get(url(item)))

    assert page.tags("img") == []
    assert page.tags("iframe") == []
    assert "No document" in page.text("document-facts")
    assert reverse("item_document", args=[item.pk]) not in [a.get("href") for a in page.tags("a")]


# --- Booked -------------------------------------------------------------------------

MOVED_CONTEXT = {
    "channel": "whatsapp",
    "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "moved_to_app"},
}


@pytest.mark.parametrize("how", ["journal_entry", "supplier_invoice"])
def test_a_booked_item_says_an_answer_can_no_longer_reach_the_verifikat(bookkeeper_client, company, how):
    item = book(factories.make_item(company, channel_context=MOVED_CONTEXT), how=how)

    page = page_of(bookkeeper_client.get(url(item)))

    notice = " ".join(page.text("booked").split())
    assert "This item is booked" in notice
    assert "an answer can no longer reach the verifikat" in notice


def test_a_booked_item_is_badged_booked_and_never_needs_an_answer(bookkeeper_client, company):
    item = book(factories.make_item(company, channel_context=MOVED_CONTEXT))

    response = bookkeeper_client.get(url(item))

    badges = [attrs.get("class") for tag, attrs in page_of(response).all_tags() if tag == "span"]
    assert "badge badge-booked" in badges
    assert "badge badge-needs_answer" not in badges


def test_an_item_that_is_not_booked_has_no_booked_notice(bookkeeper_client, company):
    # Linked to a bank transaction is not booked.
    item = link_transaction(factories.make_item(company, channel_context=MOVED_CONTEXT))

    page = page_of(bookkeeper_client.get(url(item)))

    assert not page.has("booked")
    badges = [attrs.get("class") for tag, attrs in page.all_tags() if tag == "span"]
    assert "badge badge-needs_answer" in badges


# --- The open question ----------------------------------------------------------


def test_an_open_question_is_owned_by_the_chat_until_48_hours_after_it_was_asked(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "open"},
        },
    )

    page = page_of(bookkeeper_client.get(url(item)))

    panel = " ".join(page.text("open-question").split())
    assert "What the purchase was for" in panel
    assert "Asked in WhatsApp at 2026-08-01 11:00; the chat keeps it until 2026-08-03 11:00." in panel


def test_a_moved_question_says_when_the_chat_gave_up_from_the_expiry_event(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "representation", "asked_at": ASKED_AT, "status": "moved_to_app"},
        },
    )
    accounted_event(item, ClarificationEvent.ASKED, ASKED_AT)
    # accounted's expiry cron ran a little late: its own record wins over asked_at + 48 h.
    accounted_event(item, ClarificationEvent.EXPIRED, "2026-08-03T09:30:00Z", actor=CRON)

    panel = " ".join(page_of(bookkeeper_client.get(url(item))).text("open-question").split())

    assert "Who attended and why (representation)" in panel
    assert "The chat (WhatsApp) gave up at 2026-08-03 11:30; the app owns it." in panel


def test_a_moved_question_without_an_expiry_event_gave_up_48_hours_after_asking(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "resend", "asked_at": "2026-12-01T09:00:00Z", "status": "moved_to_app"},
        },
    )

    panel = " ".join(page_of(bookkeeper_client.get(url(item))).text("open-question").split())

    assert "A sharper photo of the receipt" in panel
    # Winter time: UTC+1.
    assert "gave up at 2026-12-03 10:00; the app owns it." in panel


def test_the_open_question_panel_names_the_prompt_line(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "moved_to_app"},
        },
    )

    panel = page_of(bookkeeper_client.get(url(item))).text("open-question")

    assert "OBESVARAD FRÅGA: vad köpet avsåg." in panel


def test_an_answered_question_leaves_no_open_question(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "user_note": "kontorsmaterial",
            "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "answered"},
        },
    )

    panel = page_of(bookkeeper_client.get(url(item))).text("open-question")

    assert "No open question." in panel


def test_the_answer_panel_slot_follows_the_open_question(bookkeeper_client, company):
    # Issue 6 fills templates/items/_answer_panel.html; the page must include it
    # right under the open question and give it the permission flag.
    item = factories.make_item(company)

    response = bookkeeper_client.get(url(item))

    assert "items/_answer_panel.html" in [t.name for t in response.templates]
    assert response.context["can_answer"] is True
    assert response.context["view"].open_question is None


# --- Agent view and notes -------------------------------------------------------


def test_the_agent_view_is_shown_verbatim_with_a_copy_button(bookkeeper_client, company):
    item = factories.make_item(
        company,
        document=make_document(company, id=uuid.UUID("0b5f7f43-51a4-4c52-9a3c-0d1e2f3a4b5c")),
        extracted_data={"supplier": {"name": "Clas Ohlson"}, "totals": {"total": 99}},
        channel_context={"channel": "whatsapp", "user_note": "  pärmar\n\n# och   papper  "},
    )

    page = page_of(bookkeeper_client.get(url(item)))

    assert page.text("agent-view-text").split("\n")[:2] == [
        "  • invoice_inbox: document_id=0b5f7f43-51a4-4c52-9a3c-0d1e2f3a4b5c, leverantör=Clas Ohlson, total=99 SEK",
        "    - anteckning från användaren: pärmar # och papper",
    ]
    buttons = [b for b in page.tags("button") if b.get("data-copy-from") == "agent-view-text"]
    assert len(buttons) == 1


def test_the_notes_keep_the_humans_line_breaks(bookkeeper_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "rad ett\n\trad två"})

    page = page_of(bookkeeper_client.get(url(item)))

    assert page.text("notes-text") == "rad ett\n\trad två"


def test_a_denial_explains_why_the_verifikat_gets_nothing(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "representation": {
                "participants": [],
                "purpose": None,
                "raw_answer": "nej, bara jag",
                "answered_at": "2026-08-01T10:00:00Z",
                "denied": True,
            },
        },
    )

    page = page_of(bookkeeper_client.get(url(item)))

    assert not page.has("notes-text")
    explanation = page.text("notes-empty")
    assert "denial puts nothing on the voucher by design" in explanation
    assert "not to ask again" in explanation
    assert "INTE representation" in page.text("agent-view-text")


def test_a_caption_only_record_explains_that_the_caption_never_reaches_the_prompt(bookkeeper_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "caption": "lunch igår"})

    page = page_of(bookkeeper_client.get(url(item)))

    assert page.text("notes-text") == "lunch igår"
    assert "lunch" not in page.text("agent-view-text")
    assert "never reaches the prompt" in page.text("agent-view")


def test_a_record_without_answers_explains_that_there_is_nothing_for_the_voucher(bookkeeper_client, company):
    item = factories.make_item(company, channel_context=None)

    page = page_of(bookkeeper_client.get(url(item)))

    assert "nobody has answered anything" in page.text("notes-empty")


def test_a_lone_surrogate_in_the_notes_does_not_break_the_page(bookkeeper_client, company):
    # The notes cap counts UTF-16 units like the reference and can cut an
    # emoji in half; the page must still render.
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "caption": "x" * 218 + "😀😀"})

    response = bookkeeper_client.get(url(item))

    assert response.status_code == 200
    assert page_of(response).text("notes-text") == "x" * 218 + "\ufffd…"


def test_preview_users_get_an_open_in_preview_link(support_client, bookkeeper_client, company):
    item = factories.make_item(company)
    preview_link = f"{reverse('preview')}?item={item.pk}"

    assert preview_link in support_client.get(url(item)).content.decode()
    assert preview_link not in bookkeeper_client.get(url(item)).content.decode()


# --- What the human said ---------------------------------------------------------


def test_the_human_said_section_shows_the_denial_with_the_raw_answer_and_time(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "representation": {
                "participants": [],
                "purpose": None,
                "raw_answer": "nej, bara jag",
                "answered_at": "2026-08-01T10:00:00Z",
                "denied": True,
            },
        },
    )

    said = " ".join(page_of(bookkeeper_client.get(url(item))).text("human-said").split())

    assert "Not representation: nej, bara jag (answered 2026-08-01 12:00)" in said


def test_the_human_said_section_shows_participants_purpose_and_date(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "representation": {
                "participants": [{"name": "Anna Berg", "company": "Volvo Cars"}, {"name": "Jakob W", "company": None}],
                "purpose": "Kundmöte om ramavtal",
                "event_date": "2026-07-29",
                "raw_answer": "Anna Berg från Volvo och Jakob, ramavtal",
            },
        },
    )

    said = " ".join(page_of(bookkeeper_client.get(url(item))).text("human-said").split())

    assert "Anna Berg (Volvo Cars)" in said
    assert "Jakob W" in said
    assert "Kundmöte om ramavtal" in said
    assert "2026-07-29" in said
    assert "Anna Berg från Volvo och Jakob, ramavtal" in said


def test_the_note_is_shown_beside_the_persons_own_words(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "user_note": "Skrivarbläck",
            "context_answer": {"raw_answer": "bläck till skrivaren typ", "answered_at": "2026-08-02T08:00:00Z"},
        },
    )

    page = page_of(bookkeeper_client.get(url(item)))

    said = " ".join(page.text("human-said").split())
    assert "Note Skrivarbläck" in said
    assert "Their own words bläck till skrivaren typ answered 2026-08-02 10:00" in said


def test_the_caption_is_marked_as_never_shown_to_the_agent(bookkeeper_client, company):
    ctx = {"channel": "whatsapp", "user_note": "lunch", "caption": "bild"}
    item = factories.make_item(company, channel_context=ctx)

    said = " ".join(page_of(bookkeeper_client.get(url(item))).text("human-said").split())

    assert "Photo caption never shown to the agent bild" in said


# --- Problems and raw context ---------------------------------------------------


def test_a_malformed_record_lists_its_problems_and_still_shows_the_rest(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context={"channel": "whatsapp", "user_note": 12345, "representation": {"purpose": "Kundmöte"}},
    )

    response = bookkeeper_client.get(url(item))

    assert response.status_code == 200
    page = page_of(response)
    problems = page.text("problems")
    assert "user_note" in problems
    assert "syfte (uppgivet av användaren): Kundmöte" in page.text("agent-view-text")


def test_a_record_that_is_not_an_object_lists_a_problem(bookkeeper_client, company):
    item = factories.make_item(company, channel_context=[1, 2, 3])

    page = page_of(bookkeeper_client.get(url(item)))

    assert page.text("problems").strip()
    assert page.text("agent-view-text").startswith("  • invoice_inbox: ")


def test_a_malformed_record_does_not_claim_nobody_answered(bookkeeper_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": 12345})

    page = page_of(bookkeeper_client.get(url(item)))

    for region in ("notes-empty", "agent-view", "human-said"):
        assert "nobody has answered" not in page.text(region)
        assert "wrong shape" in page.text(region)


def test_a_well_formed_record_has_no_problems_section(bookkeeper_client, company):
    item = factories.make_item(company)

    assert not page_of(bookkeeper_client.get(url(item))).has("problems")


@pytest.mark.parametrize("client_fixture", ["support_client", "qa_client"])
def test_support_and_qa_see_the_raw_channel_context_pretty_printed(request, client_fixture, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "hej"})

    page = page_of(request.getfixturevalue(client_fixture).get(url(item)))

    assert '{\n  "channel": "whatsapp",\n  "user_note": "hej"\n}' in page.text("raw-context")
    assert page.tags("details")


def test_bookkeepers_do_not_see_the_raw_channel_context(bookkeeper_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "hej"})

    response = bookkeeper_client.get(url(item))

    assert not page_of(response).has("raw-context")
    assert '"user_note"' not in response.content.decode()


# --- Escaping -----------------------------------------------------------------------

SCRIPT = "<script>alert('x')</script>"
MARKUP = '<img src=x onerror="alert(1)"><b>fet</b>'


def test_human_typed_text_is_escaped_everywhere(support_client, company):
    item = factories.make_item(
        company,
        extracted_data={"supplier": {"name": SCRIPT}, "invoice": {"invoiceDate": MARKUP}},
        channel_context={
            "channel": "whatsapp",
            "caption": MARKUP,
            "user_note": SCRIPT,
            "context_answer": {"raw_answer": MARKUP},
            "representation": {
                "participants": [{"name": SCRIPT, "company": MARKUP}],
                "purpose": MARKUP,
                "event_date": SCRIPT,
                "raw_answer": MARKUP,
            },
            # Short: the type lands in 20-character columns.
            "pending_question": {"type": "<b>fet</b>", "asked_at": ASKED_AT, "status": "open"},
        },
    )
    accounted_event(
        item,
        ClarificationEvent.ASKED,
        ASKED_AT,
        actor={"type": "system", "id": "x", "label": SCRIPT},
        question_type="<b>fet</b>",
    )

    response = support_client.get(url(item))

    body = response.content.decode()
    assert response.status_code == 200
    assert "<script>alert" not in body
    assert "<b>fet</b>" not in body
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in body
    page = page_of(response)
    # Only our own scripts (with src) and no injected elements or handlers.
    assert all(script.get("src") for script in page.tags("script"))
    assert all(not img.get("onerror") for img in page.tags("img"))
    assert page.tags("b") == []
    # The text still reads as the human typed it.
    assert SCRIPT in page.text("human-said")
    assert MARKUP in page.text("human-said")


def test_the_page_needs_no_inline_script_or_style(support_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "moved_to_app"},
        },
        document=make_document(company, content=PNG),
    )

    page = page_of(support_client.get(url(item)))

    assert page.tags("style") == []
    for tag, attrs in page.all_tags():
        assert "style" not in attrs, tag
        assert not [name for name in attrs if name.startswith("on")], tag
    assert all(script.get("src") for script in page.tags("script"))
    assert any(str(script.get("src")).endswith("js/item.js") for script in page.tags("script"))


# --- Previous / next within the list ------------------------------------------------


def _received(item: InboxItem, when: str) -> InboxItem:
    InboxItem.objects.filter(pk=item.pk).update(created_at=at(when))
    index.index_items([item.pk])
    item.refresh_from_db()
    return item


def test_previous_and_next_follow_the_list_filter_and_keep_it(bookkeeper_client, company):
    waiting = {"channel": "whatsapp", "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "open"}}
    newest = _received(factories.make_item(company, channel_context=waiting), "2026-08-05T10:00:00Z")
    _received(factories.make_item(company, channel_context=None), "2026-08-04T10:00:00Z")
    middle = _received(factories.make_item(company, channel_context=waiting), "2026-08-03T10:00:00Z")
    _received(factories.make_item(company, channel_context=None), "2026-08-02T10:00:00Z")
    oldest = _received(factories.make_item(company, channel_context=waiting), "2026-08-01T10:00:00Z")
    query = "state=waiting_in_chat&sort=received"

    page = page_of(bookkeeper_client.get(url(middle, query)))

    links = {a.get("data-nav"): a["href"] for a in page.tags("a") if a.get("data-nav")}
    assert links == {
        "list": f"{reverse('inbox')}?{query}",
        "prev": url(newest, query),
        "next": url(oldest, query),
    }


def test_the_first_item_of_the_list_has_no_previous(bookkeeper_client, company):
    first = _received(factories.make_item(company), "2026-08-05T10:00:00Z")
    _received(factories.make_item(company), "2026-08-04T10:00:00Z")

    page = page_of(bookkeeper_client.get(url(first)))

    navigation = {a.get("data-nav") for a in page.tags("a")}
    assert "prev" not in navigation
    assert "next" in navigation
    assert {a["href"] for a in page.tags("a") if a.get("data-nav") == "list"} == {reverse("inbox")}


def test_an_item_rewritten_behind_the_apps_back_keeps_its_place_in_the_list_until_the_sync_sees_it(
    bookkeeper_client, company
):
    def asked(day: str) -> dict[str, Any]:
        pending = {"type": "context", "asked_at": f"2026-08-{day}T09:00:00Z", "status": "moved_to_app"}
        return {"channel": "whatsapp", "pending_question": pending}

    first = factories.make_item(company, channel_context=asked("01"))
    rewritten = factories.make_item(company, channel_context=asked("02"))
    third = factories.make_item(company, channel_context=asked("03"))
    # Another program moves the question to the 4th with plain SQL.
    InboxItem.objects.filter(pk=rewritten.pk).update(channel_context=asked("04"))
    query = "state=needs_answer&sort=question_age"

    def links() -> dict[str | None, str | None]:
        page = page_of(bookkeeper_client.get(url(rewritten, query)))
        return {a.get("data-nav"): a["href"] for a in page.tags("a") if a.get("data-nav")}

    # j/k walk the list as the bookkeeper sees it: the read model's order.
    assert (links().get("prev"), links().get("next")) == (url(first, query), url(third, query))
    index.index_items([rewritten.pk])  # what sync_index does within seconds
    assert (links().get("prev"), links().get("next")) == (url(third, query), None)


def test_an_item_the_sync_has_not_indexed_yet_opens_without_previous_or_next(bookkeeper_client, company):
    factories.make_item(company)
    fresh = factories.make_item(company, indexed=False, extracted_data={"supplier": {"name": "Ny AB"}})

    response = bookkeeper_client.get(url(fresh))

    assert response.status_code == 200
    assert "<h1>Ny AB</h1>" in response.content.decode()
    assert {a.get("data-nav") for a in page_of(response).tags("a")} == {"list", None}


# --- Queries ------------------------------------------------------------------------


def _queries_for(client: Any, item: InboxItem) -> int:
    with (
        CaptureQueriesContext(connections["default"]) as ours,
        CaptureQueriesContext(connections["bookkeeping"]) as theirs,
    ):
        assert client.get(url(item, "state=needs_answer&sort=question_age")).status_code == 200
    return len(ours) + len(theirs)


@pytest.mark.parametrize("client_fixture", ["bookkeeper_client", "support_client"])
def test_the_page_needs_the_same_few_queries_however_long_the_history(request, client_fixture, company):
    client = request.getfixturevalue(client_fixture)
    phone = make_phone_link(company)
    quiet = whatsapp_item(company, when="2026-07-01T08:00:00Z", wamid="wamid.QUIET", document=make_document(company))
    busy = whatsapp_item(company, when="2026-07-01T08:00:00Z", wamid="wamid.BUSY", document=make_document(company))
    actors = [factories.make_user(roles.BOOKKEEPER) for _ in range(3)]
    for n in range(30):
        make_message(item_id=busy.pk, when=f"2026-07-{1 + n % 28:02d}T10:00:00Z", body=f"svar {n}", phone_link_id=phone)
        app_event(
            busy,
            ClarificationEvent.ANSWERED,
            f"2026-08-{1 + n % 28:02d}T09:00:00Z",
            actor=actors[n % 3],
            payload={"before": {"channel": "whatsapp"}, "after": {"channel": "whatsapp", "user_note": f"n{n}"}},
        )
        accounted_event(busy, ClarificationEvent.ASKED, f"2026-07-{1 + n % 28:02d}T09:00:00Z")
    _queries_for(client, quiet)  # warm per-process caches (content types, permissions)

    assert _queries_for(client, busy) == _queries_for(client, quiet)
    # Session, user, permissions, the live row, the read model and neighbours,
    # both logs, the conversation, the photo's wamid, the linked items and
    # the answer panel's own look-ups.
    assert _queries_for(client, busy) <= 18
