"""Every piece of text a person or another program wrote is shown escaped, on every screen."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from reviewapp.models import GoldenCase
from reviewapp.previews.golden import save_golden_case
from tests.robustness.conftest import lenient, moved, staff_superuser, store_raw

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(2)>'
ATTR = "' autofocus onfocus='alert(3)"
RAW = (SCRIPT, IMG, "<img src=x onerror=alert(2)>")


def _assert_escaped(html: str) -> None:
    for raw in (*RAW, ATTR):
        assert raw not in html


@pytest.fixture
def hostile_item(db):  # type: ignore[no-untyped-def]
    item = moved(
        "representation",
        caption=SCRIPT + IMG,
        user_note=IMG + ATTR,
        representation={
            "participants": [{"name": SCRIPT, "company": IMG}, {"name": ATTR, "company": None}],
            "purpose": IMG + SCRIPT,
        },
        **{SCRIPT: IMG},
    )
    extracted = {"supplier": {"name": SCRIPT + IMG}, "invoice": {"currency": IMG}, "totals": {"total": 5}}
    return store_raw(item, extracted_data=extracted)


def test_hostile_text_is_escaped_on_the_list_and_the_item_pages(hostile_item, bookkeeper, support) -> None:  # type: ignore[no-untyped-def]
    keeper = lenient(bookkeeper)
    pages = {
        "list": keeper.get(reverse("inbox")),
        "search": keeper.get(reverse("inbox") + "?q=script"),
        "list htmx": keeper.get(reverse("inbox"), headers={"HX-Request": "true"}),
        "item": keeper.get(reverse("item_detail", args=[hostile_item.pk])),
        "answer": keeper.get(reverse("item_answer", args=[hostile_item.pk])),
        "item for support": lenient(support).get(reverse("item_detail", args=[hostile_item.pk])),
        "item htmx": keeper.get(reverse("item_detail", args=[hostile_item.pk]), headers={"HX-Request": "true"}),
    }
    for name, response in pages.items():
        assert response.status_code == 200, name
        _assert_escaped(response.content.decode())
    # Escaped, not dropped: the supplier is there for the reader.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages["list"].content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages["item for support"].content.decode()
    # The apostrophes of a participant's name are shown as text, not closing an attribute.
    assert ATTR.replace("'", "&#39;") in pages["item"].content.decode()


def test_hostile_text_in_a_posted_answer_is_escaped_in_the_form_and_its_preview(hostile_item, bookkeeper) -> None:  # type: ignore[no-untyped-def]
    data = {
        "question": "representation",
        "participants-TOTAL_FORMS": "1",
        "participants-INITIAL_FORMS": "0",
        "participants-0-name": SCRIPT,
        "participants-0-company": IMG,
        "purpose": IMG + SCRIPT,
        "event_date": IMG,
        "action": "save",
    }
    client = lenient(bookkeeper)
    for url, headers in (
        (reverse("item_answer", args=[hostile_item.pk]), {}),
        (reverse("item_answer", args=[hostile_item.pk]), {"HX-Request": "true"}),
        (reverse("item_answer_preview", args=[hostile_item.pk]), {"HX-Request": "true"}),
    ):
        response = client.post(url, data, headers=headers)
        assert response.status_code == 200
        _assert_escaped(response.content.decode())
        # Escaped, not dropped: what was typed is shown back.
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in response.content.decode()


def test_the_item_api_and_the_raw_download_are_json_not_html(hostile_item, support) -> None:  # type: ignore[no-untyped-def]
    client = lenient(support)
    api = client.get(reverse("api_item", args=[hostile_item.pk]))
    assert api["Content-Type"] == "application/json"
    assert api.json()["channel_context"]["caption"] == SCRIPT + IMG
    raw = client.get(reverse("item_raw", args=[hostile_item.pk, "channel_context"]))
    assert raw["Content-Type"] == "application/json"
    assert raw["Content-Disposition"].startswith("attachment;")
    assert raw["X-Content-Type-Options"] == "nosniff"


def test_hostile_text_is_escaped_in_the_admin(hostile_item) -> None:  # type: ignore[no-untyped-def]
    staff = lenient(staff_superuser())
    for url in (
        reverse("admin:reviewapp_indexeditem_changelist"),
        reverse("admin:reviewapp_indexeditem_changelist") + "?q=script",
        reverse("admin:reviewapp_indexeditem_change", args=[hostile_item.pk]),
        reverse("admin:reviewapp_clarificationevent_changelist"),
    ):
        response = staff.get(url)
        assert response.status_code == 200
        _assert_escaped(response.content.decode())


def test_hostile_text_is_escaped_in_the_playground_and_its_results(qa) -> None:  # type: ignore[no-untyped-def]
    ctx = {"pending_question": {"type": "context", "status": "open"}, "user_note": SCRIPT, "caption": IMG}
    client = lenient(qa)
    for headers in ({}, {"HX-Request": "true"}):
        response = client.post(
            reverse("preview"), {"channel_context": json.dumps(ctx), "document_id": IMG}, headers=headers
        )
        assert response.status_code == 200
        _assert_escaped(response.content.decode())
    broken = client.post(reverse("preview"), {"channel_context": SCRIPT})
    assert broken.status_code == 200
    _assert_escaped(broken.content.decode())


def test_the_preview_api_is_json_and_not_html(qa) -> None:  # type: ignore[no-untyped-def]
    body = json.dumps({"channel_context": {"user_note": SCRIPT}})
    response = lenient(qa).post(reverse("api_preview"), body, content_type="application/json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"


def test_hostile_golden_case_names_and_inputs_are_escaped_everywhere(qa) -> None:  # type: ignore[no-untyped-def]
    case_input = {"channel_context": {"user_note": SCRIPT, "caption": IMG}}
    case = save_golden_case(name=SCRIPT + IMG, value=case_input, user=qa)
    # A case whose stored expectation no longer matches shows a diff: escape that too.
    GoldenCase.objects.filter(pk=case.pk).update(expected={"lines": [SCRIPT], "notes": IMG})
    client = lenient(qa)
    staff = lenient(staff_superuser())
    for response in (
        client.get(reverse("golden_cases")),
        client.get(reverse("golden_cases") + "?status=fail"),
        client.get(reverse("golden_case_detail", args=[case.pk])),
        client.get(reverse("preview") + f"?case={case.pk}"),
        staff.get(reverse("admin:reviewapp_goldencase_changelist")),
        staff.get(reverse("admin:reviewapp_goldencase_change", args=[case.pk])),
    ):
        assert response.status_code == 200
        _assert_escaped(response.content.decode())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in client.get(reverse("golden_cases")).content.decode()


def test_a_hostile_golden_case_name_posted_is_escaped_in_the_error(qa) -> None:  # type: ignore[no-untyped-def]
    save_golden_case(name=SCRIPT, value={"channel_context": {}}, user=qa)
    response = lenient(qa).post(reverse("golden_case_create"), {"channel_context": "{}", "name": SCRIPT})
    assert response.status_code == 200
    assert "A golden case with this name already exists." in response.content.decode()
    _assert_escaped(response.content.decode())
