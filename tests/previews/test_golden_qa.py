"""QA's golden cases: diffs on canonical JSON, accept only after a confirmation page, names in natural order,
and QA's first page after login."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from reviewapp.core import roles
from reviewapp.models import GoldenCase, GoldenCaseChange
from reviewapp.previews.golden import save_golden_case
from tests import factories
from tests.html import form_of, text_of, texts
from tests.previews.conftest import GOLDEN


@pytest.fixture
def imported(db) -> None:  # type: ignore[no-untyped-def]
    call_command("golden_import", str(GOLDEN), stdout=io.StringIO())


def _outdated_summary(name: str, **changes: object) -> GoldenCase:
    case = GoldenCase.objects.get(name=name)
    case.expected = {**case.expected, "summary": {**case.expected["summary"], **changes}}
    case.save()
    return case


def test_a_one_field_change_in_a_stored_object_is_one_changed_line(qa_client, imported):
    # jsonb stores the summary's keys shorter first; the renderer writes them in its own order.
    case = _outdated_summary("full answer", userNote="en gammal anteckning")
    stored = GoldenCase.objects.get(pk=case.pk).expected["summary"]
    assert list(stored) != list(sorted(stored)), "jsonb kept the keys in an order of its own"

    page = qa_client.get(reverse("golden_case_detail", args=[case.pk])).content.decode()

    assert texts(page, cls="diff-remove") == ['-  "userNote": "en gammal anteckning"']
    assert len(texts(page, cls="diff-add")) == 1
    assert texts(page, cls="diff-add")[0].startswith('+  "userNote": ')


def test_the_stored_and_current_outputs_are_shown_with_the_same_key_order(qa_client, imported):
    case = _outdated_summary("full answer", userNote="en gammal anteckning")

    page = qa_client.get(reverse("golden_case_detail", args=[case.pk])).content.decode()

    def keys(text: str) -> list[str]:
        return list(json.loads(text)["summary"])

    assert keys(text_of(page, "expected-json")) == keys(text_of(page, "actual-json"))
    assert keys(text_of(page, "expected-json")) == sorted(keys(text_of(page, "expected-json")))


def test_the_case_page_links_to_a_confirmation_instead_of_accepting(qa_client, imported):
    case = _outdated_summary("full answer", userNote="gammal")

    page = qa_client.get(reverse("golden_case_detail", args=[case.pk])).content.decode()

    assert texts(page, id="golden-accept") == []  # no form that accepts in one click
    assert f'href="{reverse("golden_case_accept", args=[case.pk])}"' in page
    assert texts(page, id="golden-accept-link") == ["Accept the current output…"]


def test_the_confirmation_shows_the_diff_and_asks(qa_client, imported):
    case = _outdated_summary("full answer", userNote="gammal")

    response = qa_client.get(reverse("golden_case_accept", args=[case.pk]))

    assert response.status_code == 200
    page = response.content.decode()
    assert "Accept the current output of “full answer”?" in page
    assert texts(page, cls="diff-remove") == ['-  "userNote": "gammal"']
    form = form_of(page, "golden-accept")
    assert [(b["name"], b["value"]) for b in form.submit_buttons] == [("confirm", "yes")]
    case.refresh_from_db()
    assert case.expected["summary"]["userNote"] == "gammal"  # asking changed nothing
    assert not GoldenCaseChange.objects.exists()


def test_a_post_without_the_confirmation_accepts_nothing(qa_client, imported):
    case = _outdated_summary("full answer", userNote="gammal")
    form = form_of(qa_client.get(reverse("golden_case_accept", args=[case.pk])).content.decode(), "golden-accept")

    response = qa_client.post(reverse("golden_case_accept", args=[case.pk]), dict(form.fields), follow=True)

    case.refresh_from_db()
    assert case.expected["summary"]["userNote"] == "gammal"
    assert not GoldenCaseChange.objects.exists()
    assert "Nothing was accepted" in response.content.decode()


def test_confirming_accepts_the_output_shown(qa, qa_client, imported):
    case = _outdated_summary("full answer", userNote="gammal")
    form = form_of(qa_client.get(reverse("golden_case_accept", args=[case.pk])).content.decode(), "golden-accept")

    response = qa_client.post(reverse("golden_case_accept", args=[case.pk]), {**dict(form.fields), "confirm": "yes"})

    assert response.status_code == 302
    case.refresh_from_db()
    assert case.expected["summary"]["userNote"] != "gammal"
    assert GoldenCaseChange.objects.get(case=case).changed_by == qa


def test_case_names_sort_as_numbers_within_text(qa_client, db):
    value = {"channel_context": {"channel": "whatsapp", "user_note": "hej"}}
    for name in ("fall 10", "fall 2", "fall 11", "fall 1", "Fall 3"):
        save_golden_case(name=name, value=value)

    page = qa_client.get(reverse("golden_cases")).content.decode()

    names = [text.split("Pass", 1)[1].split()[:2] for text in texts(page, cls="golden-pass")]
    assert [" ".join(name) for name in names] == ["fall 1", "fall 2", "Fall 3", "fall 10", "fall 11"]


# --- Where each role lands after logging in ---------------------------------------------


def _log_in(username: str, next_url: str | None = "/") -> str:
    client = Client()
    url = reverse("login") + (f"?next={next_url}" if next_url is not None else "")
    response = client.post(url, {"username": username, "password": factories.PASSWORD})
    assert response.status_code == 302, response.content.decode()[:500]
    return response["Location"]


def test_qa_land_on_the_preview_after_login(db):
    factories.make_user(roles.QA, username="qarin")
    assert _log_in("qarin") == reverse("preview")
    assert _log_in("qarin", next_url=None) == reverse("preview")


def test_bookkeepers_and_support_still_land_on_the_list(db):
    factories.make_user(roles.BOOKKEEPER, username="bea")
    factories.make_user(roles.SUPPORT, username="sven")
    assert _log_in("bea") == "/"
    assert _log_in("sven") == "/"


def test_qa_asking_for_a_page_get_that_page(db):
    factories.make_user(roles.QA, username="qarin")
    assert _log_in("qarin", next_url="/preview/cases/") == "/preview/cases/"
    assert _log_in("qarin", next_url="/?state=answered") == "/?state=answered"
