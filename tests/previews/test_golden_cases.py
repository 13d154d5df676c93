"""Golden cases: saving from the preview and the item page, pass/fail, the diff of a change."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

import clarifications.cli
from reviewapp.models import GoldenCase
from reviewapp.previews.golden import canonical
from tests import factories
from tests.html import text_of, texts
from tests.items.bookkeeping import DEEP_JSON, poison_item
from tests.previews.conftest import GOLDEN, golden_records

SAVE = "/preview/cases/new/"
LIST = "/preview/cases/"
RECORDS = {r["name"]: r for r in golden_records()}


def _form_data(value: dict[str, Any], **extra: str) -> dict[str, str]:
    item = value.get("item") or {}
    extracted = item.get("extracted_data")
    return {
        "channel_context": json.dumps(value["channel_context"], ensure_ascii=False),
        "document_id": item.get("document_id") or "",
        "extracted_data": "" if extracted is None else json.dumps(extracted, ensure_ascii=False),
        **extra,
    }


@pytest.fixture
def imported(db) -> None:  # type: ignore[no-untyped-def]
    call_command("golden_import", str(GOLDEN), stdout=io.StringIO())


def test_the_url_names(db):
    assert reverse("golden_case_create") == SAVE
    assert reverse("golden_cases") == LIST


# --- Saving ------------------------------------------------------------------------


def test_qa_saves_the_previewed_input_with_what_it_renders_to_now(qa, qa_client):
    record = RECORDS["half answer: participants, no purpose"]
    response = qa_client.post(SAVE, _form_data(record["input"], name="halvt svar"))
    case = GoldenCase.objects.get(name="halvt svar")
    assert response.status_code == 302
    assert response["Location"] == reverse("golden_case_detail", args=[case.pk])
    assert case.input == record["input"]
    assert case.created_by == qa
    assert record["expected"]
    for key, value in record["expected"].items():
        assert canonical(case.expected[key]) == canonical(value)
    assert case.expected["problems"] == []
    page = qa_client.get(response["Location"]).content.decode()
    assert "Saved golden case “halvt svar”." in page


def test_an_htmx_save_redirects_the_browser(qa_client):
    record = RECORDS["denial"]
    response = qa_client.post(SAVE, _form_data(record["input"], name="nej"), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("golden_case_detail", args=[GoldenCase.objects.get().pk])


def test_a_name_is_required(qa_client):
    response = qa_client.post(SAVE, _form_data(RECORDS["denial"]["input"], name="  "))
    assert response.status_code == 200
    assert "This field is required." in text_of(response.content.decode(), "id_name_error")
    assert not GoldenCase.objects.exists()


def test_a_name_already_used_is_refused_under_the_field(qa_client):
    qa_client.post(SAVE, _form_data(RECORDS["denial"]["input"], name="nej"))
    response = qa_client.post(SAVE, _form_data(RECORDS["user note"]["input"], name="nej"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "A golden case with this name already exists." in text_of(html, "id_name_error")
    # The input is kept so it can be saved under another name.
    assert "user_note" in text_of(html, "id_channel_context")
    assert GoldenCase.objects.count() == 1


def test_invalid_json_is_not_saved(qa_client):
    data = {"channel_context": "{", "document_id": "", "extracted_data": "", "name": "trasig"}
    response = qa_client.post(SAVE, data)
    assert response.status_code == 200
    assert "Invalid JSON" in text_of(response.content.decode(), "id_channel_context_error")
    assert not GoldenCase.objects.exists()


def test_support_may_not_save(support_client):
    response = support_client.post(SAVE, _form_data(RECORDS["denial"]["input"], name="nej"))
    assert response.status_code == 403
    assert not GoldenCase.objects.exists()


def test_bookkeepers_may_not_save(bookkeeper_client):
    assert bookkeeper_client.post(SAVE, _form_data(RECORDS["denial"]["input"], name="nej")).status_code == 403


def test_saving_needs_post(qa_client):
    assert qa_client.get(SAVE).status_code == 405


def test_the_save_form_is_on_the_preview_for_qa_only(qa_client, support_client):
    qa_page = qa_client.get(reverse("preview")).content.decode()
    assert f'<form id="golden-save-form" method="post" action="{SAVE}"' in qa_page
    assert SAVE not in support_client.get(reverse("preview")).content.decode()


def test_qa_saves_an_item_from_the_item_page(qa_client, company):
    context = {"channel": "whatsapp", "representation": {"denied": True, "participants": [], "purpose": None}}
    item = factories.make_item(company, channel_context=context)
    page = qa_client.get(reverse("item_detail", args=[item.pk])).content.decode()
    assert 'id="qa-save-golden"' in page
    assert f'name="item" value="{item.pk}"' in page
    response = qa_client.post(SAVE, {"item": str(item.pk), "name": "från inkorgen"})
    assert response.status_code == 302
    case = GoldenCase.objects.get(name="från inkorgen")
    assert case.input == {
        "channel_context": context,
        "item": {"document_id": None, "extracted_data": item.extracted_data},
    }
    assert case.expected["lines"] == RECORDS["denial"]["expected"]["lines"]


def test_an_item_save_with_a_taken_name_lands_on_the_preview_with_the_item(qa_client, company):
    GoldenCase.objects.create(name="taget", input={}, expected={})
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "hej"})
    response = qa_client.post(SAVE, {"item": str(item.pk), "name": "taget"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "already exists" in text_of(html, "id_name_error")
    assert json.loads(text_of(html, "id_channel_context")) == item.channel_context


def test_the_item_page_has_no_save_form_for_support(support_client, company):
    item = factories.make_item(company)
    assert 'id="qa-save-golden"' not in support_client.get(reverse("item_detail", args=[item.pk])).content.decode()


def test_an_item_whose_json_cannot_be_decoded_is_not_saved_and_says_why(qa_client, company):
    item_id = poison_item(company, channel_context=DEEP_JSON)

    response = qa_client.post(SAVE, {"item": str(item_id), "name": "giftig"})

    assert response.status_code == 200
    assert "nested too deep to read" in text_of(response.content.decode(), "load-error")
    assert not GoldenCase.objects.filter(name="giftig").exists()


def test_an_unreadable_item_page_offers_no_save_form(qa_client, company):
    item_id = poison_item(company, channel_context=DEEP_JSON)

    page = qa_client.get(reverse("item_detail", args=[item_id])).content.decode()

    assert 'id="qa-save-golden"' not in page


def test_saving_an_unknown_item_is_404(qa_client):
    response = qa_client.post(SAVE, {"item": "00000000-0000-0000-0000-000000000000", "name": "x"})
    assert response.status_code == 404


# --- The list and the diff ---------------------------------------------------------


def test_every_case_of_the_shared_file_passes_on_the_list(qa_client, imported):
    html = qa_client.get(LIST).content.decode()
    assert len(texts(html, cls="golden-pass")) == len(RECORDS)
    assert texts(html, cls="golden-fail") == []


def test_a_changed_expectation_fails_with_a_line_diff(qa_client, imported):
    case = GoldenCase.objects.get(name="denial")
    old_line = case.expected["lines"][0]
    case.expected = {**case.expected, "lines": ["svar från användaren: detta är representation."]}
    case.save()
    html = qa_client.get(LIST).content.decode()
    (failing,) = texts(html, cls="golden-fail")
    # Listed first, ahead of the 58 passing cases.
    assert html.index('class="golden-fail"') < html.index('class="golden-pass"')
    assert "denial" in failing
    assert "lines" in failing
    detail = qa_client.get(reverse("golden_case_detail", args=[case.pk])).content.decode()
    removed = texts(detail, cls="diff-remove")
    added = texts(detail, cls="diff-add")
    assert removed == ['-  "svar från användaren: detta är representation."']
    assert added == [f"+  {json.dumps(old_line, ensure_ascii=False)}"]


def test_a_changed_renderer_is_detected(qa_client, imported, monkeypatch):
    original = clarifications.cli.render_lines

    def louder(summary: Any) -> list[str]:
        return [line.replace("INTE", "inte") for line in original(summary)]

    monkeypatch.setattr(clarifications.cli, "render_lines", louder)
    html = qa_client.get(LIST).content.decode()
    failing = " ".join(texts(html, cls="golden-fail"))
    for name in ("denial", "denial with event date", "denial plus moved context question"):
        assert name in failing
    case = GoldenCase.objects.get(name="denial")
    detail = qa_client.get(reverse("golden_case_detail", args=[case.pk])).content.decode()
    assert any("INTE representation" in line for line in texts(detail, cls="diff-remove"))
    assert any("inte representation" in line for line in texts(detail, cls="diff-add"))


def test_the_filter_shows_failing_cases_only(qa_client, imported):
    case = GoldenCase.objects.get(name="user note")
    case.expected = {**case.expected, "notes": "något annat"}
    case.save()
    html = qa_client.get(LIST, {"status": "fail"}).content.decode()
    assert texts(html, cls="golden-pass") == []
    assert len(texts(html, cls="golden-fail")) == 1


def test_a_bad_filter_value_shows_everything_with_an_error(qa_client, imported):
    response = qa_client.get(LIST, {"status": "maybe"})
    assert response.status_code == 200
    html = response.content.decode()
    assert len(texts(html, cls="golden-pass")) == len(RECORDS)
    assert "Select a valid choice." in text_of(html, "id_status_error")


def test_names_and_diffs_are_escaped(qa_client):
    value = {"channel_context": {"channel": "whatsapp", "user_note": "<script>x</script>"}, "item": None}
    case = GoldenCase.objects.create(
        name="<img src=x onerror=alert(1)>", input=value, expected={"notes": "<b>gammal</b>"}
    )
    list_html = qa_client.get(LIST).content.decode()
    assert "<img src=x" not in list_html
    assert "&lt;img src=x onerror=alert(1)&gt;" in list_html
    detail = qa_client.get(reverse("golden_case_detail", args=[case.pk])).content.decode()
    assert "<b>gammal</b>" not in detail
    assert "<script>x</script>" not in detail
    assert texts(detail, cls="diff-remove") == ['-"<b>gammal</b>"']
    assert texts(detail, cls="diff-add") == ['+"<script>x</script>"']


def test_a_passing_case_shows_no_diff_and_links_to_the_preview(qa_client, imported):
    case = GoldenCase.objects.get(name="markdown injection in note")
    html = qa_client.get(reverse("golden_case_detail", args=[case.pk])).content.decode()
    assert texts(html, id="golden-diff") == []
    assert f'href="/preview/?case={case.pk}"' in html
    loaded = qa_client.get(reverse("preview"), {"case": case.pk}).content.decode()
    assert json.loads(text_of(loaded, "id_channel_context")) == case.input["channel_context"]
    assert texts(loaded, cls="verbatim-line") == RECORDS["markdown injection in note"]["expected"]["lines"]


def test_a_flatten_case_has_no_preview_link(qa_client, imported):
    case = GoldenCase.objects.get(name="flatten 1")
    html = qa_client.get(reverse("golden_case_detail", args=[case.pk])).content.decode()
    assert "?case=" not in html
    assert qa_client.get(reverse("preview"), {"case": case.pk}).status_code == 404


def test_support_sees_the_cases_and_bookkeepers_do_not(support_client, bookkeeper_client, imported):
    case = GoldenCase.objects.first()
    assert support_client.get(LIST).status_code == 200
    assert support_client.get(reverse("golden_case_detail", args=[case.pk])).status_code == 200
    assert bookkeeper_client.get(LIST).status_code == 403
    assert bookkeeper_client.get(reverse("golden_case_detail", args=[case.pk])).status_code == 403


def test_an_unknown_case_is_404_and_post_is_405(qa_client, imported):
    assert qa_client.get(reverse("golden_case_detail", args=[999_999])).status_code == 404
    assert qa_client.post(LIST).status_code == 405
    case = GoldenCase.objects.first()
    assert qa_client.post(reverse("golden_case_detail", args=[case.pk])).status_code == 405


@pytest.mark.postgres
def test_an_output_postgresql_cannot_store_is_a_form_error_not_a_500(qa_client):
    # 219 UTF-16 units of note and the cap cuts the first emoji in half.
    context = {"channel": "whatsapp", "user_note": "a" * 218 + "😀😀"}
    data = {"channel_context": json.dumps(context, ensure_ascii=False), "name": "halv emoji"}
    response = qa_client.post(SAVE, data)
    assert response.status_code == 200
    assert "half an emoji" in text_of(response.content.decode(), "golden-save")
    assert not GoldenCase.objects.exists()
