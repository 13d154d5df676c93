"""The item page's "What the human said", its problems list and the raw channel_context."""

from __future__ import annotations

import pytest
from django.urls import reverse

from clarifications import phrases
from tests import factories
from tests.answers.conftest import answer_url, moved_item, representation_post
from tests.html import page_of
from tests.inbox.helpers import denial
from tests.items.page import url

# --- What the human said ---------------------------------------------------------


def test_the_human_said_section_shows_the_denial_with_the_raw_answer_and_time(bookkeeper_client, company):
    item = factories.make_item(
        company,
        channel_context=denial("nej, bara jag", answered_at="2026-08-01T10:00:00Z"),
    )

    said = page_of(bookkeeper_client.get(url(item))).words("human-said")

    # The chat's reply is the customer's words, and says so.
    assert "Not representation (answered 2026-08-01 12:00) The customer's words (from the chat) nej, bara jag" in said


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

    said = page_of(bookkeeper_client.get(url(item))).words("human-said")

    assert "Anna Berg (Volvo Cars)" in said
    assert "Jakob W" in said
    assert "Kundmöte om ramavtal" in said
    assert "2026-07-29" in said
    assert "The customer's words (from the chat) Anna Berg från Volvo och Jakob, ramavtal" in said
    assert "as typed" not in said


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

    said = page.words("human-said")
    assert "Note Skrivarbläck" in said
    assert (
        "Stored answer The customer's words (from the chat) bläck till skrivaren typ answered 2026-08-02 10:00" in said
    )


# --- Who wrote the stored raw_answer ----------------------------------------------


def _said(client, item) -> str:  # type: ignore[no-untyped-def]
    return page_of(client.get(reverse("item_detail", args=[item.pk]))).words("human-said")


def test_an_app_answer_without_the_customers_words_is_labelled_as_the_firms_not_theirs(bookkeeper_client):
    item = moved_item("representation")
    bookkeeper_client.post(answer_url(item), representation_post([("Anna Berg", "Volvo")], purpose="Avtalsmöte"))
    said = _said(bookkeeper_client, item)
    assert "Entered by the firm in the review app Inmatat av byrån i granskningsappen " in said
    assert "Deltagare: Anna Berg (Volvo); syfte: Avtalsmöte" in said
    assert "customer's words" not in said
    assert "as typed" not in said


def test_the_customers_words_are_labelled_with_where_they_came_from(bookkeeper_client):
    item = moved_item("representation")
    data = representation_post(
        [("Anna Berg", "")], purpose="Avtalsmöte", raw_answer="Jag och Anna från Volvo", raw_answer_via="email"
    )
    bookkeeper_client.post(answer_url(item), data)
    said = _said(bookkeeper_client, item)
    assert "The customer's words (by e-mail) Jag och Anna från Volvo" in said
    assert "Entered by the firm" not in said


def test_an_amended_context_answer_shows_the_customers_new_words_labelled_as_theirs(bookkeeper_client):
    item = moved_item("context")
    bookkeeper_client.post(answer_url(item), {"question": "context", "text": "Taxi"})
    page = page_of(bookkeeper_client.get(reverse("item_answer", args=[item.pk])))
    version = page.values(type="hidden")["answer_version"]
    bookkeeper_client.post(
        answer_url(item),
        {
            "question": "context",
            "text": "Taxi till Volvo",
            "raw_answer": "taxin till Volvo i Torslanda",
            "raw_answer_via": "message",
            "amend": "1",
            "answer_version": version,
        },
    )
    said = _said(bookkeeper_client, item)
    # Only the current answer: the customer's words given with the correction, and no text of the firm's.
    assert "The customer's words (in a message) taxin till Volvo i Torslanda" in said
    assert "Inmatat av byrån" not in said


def test_the_caption_is_marked_as_never_shown_to_the_agent(bookkeeper_client, company):
    ctx = {"channel": "whatsapp", "user_note": "lunch", "caption": "bild"}
    item = factories.make_item(company, channel_context=ctx)

    said = page_of(bookkeeper_client.get(url(item))).words("human-said")

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
    assert phrases.PURPOSE_PREFIX + "Kundmöte" in page.text("agent-view-text")


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


def test_the_api_gives_each_piece_of_the_raw_answer_with_its_source(bookkeeper_client):
    item = moved_item("representation", representation={"participants": [], "raw_answer": "Elias"})
    data = representation_post(
        [("Elias", "")], purpose="Säljmöte", raw_answer="Elias och jag, säljmöte", raw_answer_via="phone"
    )
    bookkeeper_client.post(answer_url(item), data)
    human = bookkeeper_client.get(reverse("api_item", args=[item.pk])).json()["human"]
    assert human["representation_raw_answer"] == "Elias\nElias och jag, säljmöte"
    assert human["representation_raw_answer_pieces"] == [
        {"text": "Elias", "source": "chat"},
        {"text": "Elias och jag, säljmöte", "source": "phone"},
    ]
    assert human["context_answer_raw_pieces"] == []
