"""Suggestions from the company's own earlier answers, on the answer form: own company only, same supplier first."""

from __future__ import annotations

from typing import Any

import pytest

from reviewapp.answers.suggestions import suggestions_for
from reviewapp.bookkeeping.models import Company, InboxItem
from tests import factories
from tests.answers.conftest import ASKED_AT, answer_url, moved_item
from tests.html import page_of

pytestmark = pytest.mark.django_db

RESTAURANT = "Restaurang Tornet"


def supplier(name: str) -> dict[str, Any]:
    return {"supplier": {"name": name}, "invoice": {"currency": "SEK"}, "totals": {"total": 500}}


def answered_representation(
    company: Company, supplier_name: str, people: list[tuple[str, str | None]], purpose: str | None, **extra: Any
) -> InboxItem:
    value = {
        "participants": [{"name": name, "company": firm} for name, firm in people],
        "purpose": purpose,
        "event_date": None,
        "raw_answer": "svar",
        "answered_at": "2026-10-03T12:00:00.000Z",
        **extra,
    }
    ctx = {
        "channel": "whatsapp",
        "pending_question": {"type": "representation", "asked_at": ASKED_AT, "status": "answered"},
        "representation": value,
    }
    return factories.make_item(company, extracted_data=supplier(supplier_name), channel_context=ctx)


def answered_context(company: Company, supplier_name: str, note: str) -> InboxItem:
    ctx = {
        "channel": "whatsapp",
        "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "answered"},
        "user_note": note,
        "context_answer": {"raw_answer": note, "answered_at": "2026-10-05T08:00:00.000Z"},
    }
    return factories.make_item(company, extracted_data=supplier(supplier_name), channel_context=ctx)


def open_question(company: Company, question: str, supplier_name: str = RESTAURANT) -> InboxItem:
    item = moved_item(question, company=company)
    InboxItem.objects.filter(pk=item.pk).update(extracted_data=supplier(supplier_name))
    item.refresh_from_db()
    return item


def shown(suggestions: list[Any]) -> list[tuple[str, str, str]]:
    return [(s.kind, s.text, s.company) for s in suggestions]


def test_the_same_suppliers_participants_and_purpose_come_before_more_frequent_ones(company):
    answered_representation(company, "Café Lunch", [("Per Ek", None)], "Lunchmöte")
    answered_representation(company, "Café Lunch", [("Per Ek", None)], "Lunchmöte")
    source = answered_representation(company, RESTAURANT, [("Anna Berg", "Volvo AB")], "Avtalsmöte")
    found = suggestions_for(open_question(company, "representation"), "representation")
    assert shown(found) == [
        ("participant", "Anna Berg", "Volvo AB"),
        ("participant", "Per Ek", ""),
        ("purpose", "Avtalsmöte", ""),
        ("purpose", "Lunchmöte", ""),
    ]
    assert found[0].source_item == source.pk
    assert found[0].source_at.isoformat() == "2026-10-03T12:00:00+00:00"
    assert (found[1].count, found[1].same_supplier) == (2, False)


def test_another_companys_answers_are_never_suggested(company):
    other = factories.make_company()
    answered_representation(other, RESTAURANT, [("Hemlig Gäst", "Konkurrent AB")], "Hemligt möte")
    answered_context(other, RESTAURANT, "Hemlig middag")
    assert suggestions_for(open_question(company, "representation"), "representation") == []
    assert suggestions_for(open_question(company, "context"), "context") == []


def test_a_denial_names_nobody_and_a_half_answer_still_offers_its_people(company):
    answered_representation(company, RESTAURANT, [], None, denied=True)
    answered_representation(company, RESTAURANT, [("Lisa Holm", None)], None)
    found = suggestions_for(open_question(company, "representation"), "representation")
    assert shown(found) == [("participant", "Lisa Holm", "")]


def test_a_context_question_gets_the_same_suppliers_earlier_context_answers_only(company):
    answered_context(company, "Taxi Stockholm", "Taxi till kundmöte")
    answered_context(company, "Taxi Stockholm", "Taxi till kundmöte")
    answered_context(company, "Taxi Stockholm", "Taxi till flyget")
    answered_context(company, RESTAURANT, "Middag med styrelsen")
    found = suggestions_for(open_question(company, "context", "taxi stockholm "), "context")
    assert shown(found) == [("context", "Taxi till kundmöte", ""), ("context", "Taxi till flyget", "")]
    assert found[0].count == 2


def test_the_item_does_not_suggest_its_own_answer(company):
    item = answered_representation(company, RESTAURANT, [("Anna Berg", None)], "Möte")
    assert suggestions_for(item, "representation") == []


def test_the_answer_form_shows_each_suggestion_with_its_key_and_where_it_came_from(bookkeeper_client, company):
    source = answered_representation(company, RESTAURANT, [("Anna Berg", "Volvo AB")], "Avtalsmöte")
    item = open_question(company, "representation")
    page = page_of(bookkeeper_client.get(answer_url(item)))
    section = page.text("answer-suggestions")
    assert "Alt+Shift+1Participant:" in "".join(section.split())
    assert "Anna Berg (Volvo AB)" in section
    assert "Avtalsmöte" in section
    assert f"given 2026-10-03 on {str(source.pk)[:8]}" in " ".join(section.split())
    buttons = [tag for tag in page.tags("button") if tag.get("data-suggestion")]
    assert [(b["data-suggestion"], b["data-text"], b["data-suggestion-key"]) for b in buttons] == [
        ("participant", "Anna Berg", "1"),
        ("purpose", "Avtalsmöte", "2"),
    ]
    assert any(tag.get("href") == f"/items/{source.pk}/" for tag in page.tags("a"))


def test_a_suggestion_is_escaped_like_any_stored_text(bookkeeper_client, company):
    answered_representation(company, RESTAURANT, [('<script>alert(1)</script>"', "<b>AB</b>")], "<img src=x>")
    response = bookkeeper_client.get(answer_url(open_question(company, "representation")))
    html = response.content.decode()
    assert "<script>alert(1)" not in html
    assert "<img src=x>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    buttons = [tag for tag in page_of(response).tags("button") if tag.get("data-suggestion")]
    assert buttons[0]["data-text"] == '<script>alert(1)</script>"'


def test_no_suggestions_no_section(bookkeeper_client, company):
    page = page_of(bookkeeper_client.get(answer_url(open_question(company, "representation"))))
    assert not page.has("answer-suggestions")


def test_at_most_five_people_are_offered_and_a_200_character_company_is_kept(company):
    firm = "F" * 200
    answered_representation(company, RESTAURANT, [(f"Person {n}", firm) for n in range(7)], None)
    item = open_question(company, "representation")
    people = [s for s in suggestions_for(item, "representation") if s.kind == "participant"]
    assert len(people) == 5
    assert {s.company for s in people} == {firm}
