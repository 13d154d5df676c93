"""The admin never writes an item or the audit trail, and its forms never 500 on odd JSON."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import ClarificationEvent, GoldenCase, IndexedItem
from tests.items.bookkeeping import app_event
from tests.robustness.conftest import lenient, moved, snapshot, staff_superuser


@pytest.mark.django_db
def test_a_superuser_cannot_change_an_item_in_the_admin():
    item = moved("context")
    before = snapshot(item)
    staff = lenient(staff_superuser())
    url = reverse("admin:reviewapp_indexeditem_change", args=[item.pk])

    page = staff.get(url)
    response = staff.post(url, {"supplier_name": "forged", "state_booked": "on", "summary": '{"forged": true}'})

    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    assert response.status_code == 403
    assert snapshot(item) == before
    assert IndexedItem.objects.get(pk=item.pk).supplier_name != "forged"


@pytest.mark.django_db
def test_a_superuser_cannot_delete_an_item_and_its_history_in_the_admin():
    item = moved("context")
    app_event(item, ClarificationEvent.ANSWERED, "2026-08-02T10:00:00+00:00", payload={"before": {}, "after": {}})
    before = snapshot(item)
    staff = lenient(staff_superuser())

    response = staff.post(reverse("admin:reviewapp_indexeditem_delete", args=[item.pk]), {"post": "yes"})
    bulk = staff.post(
        reverse("admin:reviewapp_indexeditem_changelist"),
        {"action": "delete_selected", "_selected_action": [str(item.pk)], "post": "yes"},
    )

    assert response.status_code == 403
    assert bulk.status_code < 500
    assert InboxItem.objects.filter(pk=item.pk).exists()
    assert IndexedItem.objects.filter(pk=item.pk).exists()
    assert snapshot(item) == before


@pytest.mark.django_db
def test_a_superuser_cannot_add_change_or_delete_an_event_of_the_audit_trail():
    item = moved("context")
    event = app_event(item, ClarificationEvent.ANSWERED, "2026-08-02T10:00:00+00:00", payload={"after": {"a": 1}})
    staff = lenient(staff_superuser())

    add = staff.post(reverse("admin:reviewapp_clarificationevent_add"), {"event_type": "forged"})
    change = staff.post(reverse("admin:reviewapp_clarificationevent_change", args=[event.pk]), {"event_type": "forged"})
    delete = staff.post(reverse("admin:reviewapp_clarificationevent_delete", args=[event.pk]), {"post": "yes"})

    assert (add.status_code, change.status_code, delete.status_code) == (403, 403, 403)
    assert list(ClarificationEvent.objects.values_list("event_type", "payload")) == [
        (ClarificationEvent.ANSWERED, {"after": {"a": 1}})
    ]


# --- The golden case admin's JSON fields ------------------------------------------------

GOOD_INPUT = '{"channel_context": {"user_note": "Fika"}}'
GOOD_EXPECTED = '{"lines": [], "notes": null}'

# JSON text Python's json reads badly or not at all, or PostgreSQL's jsonb refuses.
ODD_JSON = {
    "5 000-digit integer": '{"channel_context": {"n": ' + "9" * 5_000 + "}}",
    "integer past 2**53": '{"channel_context": {"n": 9007199254740993}}',
    "nested 10 000 deep": "[" * 10_000 + "]" * 10_000,
    "NaN": '{"channel_context": {"n": NaN}}',
    "Infinity": '{"channel_context": {"n": Infinity}}',
    "a float that overflows": '{"channel_context": {"n": 1e400}}',
    "NUL": '{"channel_context": {"user_note": "a\\u0000b"}}',
    "lone surrogate": '{"channel_context": {"user_note": "half \\ud83d"}}',
}


def _golden_post(**fields: str) -> dict[str, str]:
    return {"name": "odd", "input": GOOD_INPUT, "expected": GOOD_EXPECTED, "tags": "[]", **fields}


def _json_fields_of_the_add_form() -> list[str]:
    """The admin add form's JSON fields (``expected`` is read-only there: only "accept" changes it)."""
    from reviewapp.admin import GoldenCaseAdmin

    readonly = set(GoldenCaseAdmin.readonly_fields)
    return [name for name in ("input", "expected", "tags") if name not in readonly]


@pytest.mark.django_db
@pytest.mark.parametrize("key", ODD_JSON)
def test_odd_json_in_the_golden_case_admin_is_a_form_error_and_nothing_is_saved(key):
    client = lenient(staff_superuser())
    fields = _json_fields_of_the_add_form()
    assert fields, "the add form has no JSON field left to try"
    for field in fields:
        response = client.post(reverse("admin:reviewapp_goldencase_add"), _golden_post(**{field: ODD_JSON[key]}))
        assert response.status_code == 200, field
        assert 'class="errorlist' in response.content.decode(), field
    assert not GoldenCase.objects.exists()


@pytest.mark.django_db
def test_a_5000_digit_integer_in_the_golden_case_admin_says_what_is_wrong():
    response = lenient(staff_superuser()).post(
        reverse("admin:reviewapp_goldencase_add"), _golden_post(input=ODD_JSON["5 000-digit integer"])
    )
    assert response.status_code == 200
    assert "A number is too large" in response.content.decode()
    assert not GoldenCase.objects.exists()


@pytest.mark.django_db
def test_a_changed_golden_case_with_odd_json_is_a_form_error_and_the_case_is_unchanged():
    case = GoldenCase.objects.create(name="kept", input={"channel_context": {}}, expected={"lines": []})
    response = lenient(staff_superuser()).post(
        reverse("admin:reviewapp_goldencase_change", args=[case.pk]),
        _golden_post(name="kept", input=ODD_JSON["nested 10 000 deep"]),
    )
    assert response.status_code == 200
    assert 'class="errorlist' in response.content.decode()
    case.refresh_from_db()
    assert case.input == {"channel_context": {}}


@pytest.mark.django_db
def test_the_golden_case_admin_still_saves_ordinary_json():
    response = lenient(staff_superuser()).post(reverse("admin:reviewapp_goldencase_add"), _golden_post())
    assert response.status_code == 302
    case = GoldenCase.objects.get(name="odd")
    assert case.input == {"channel_context": {"user_note": "Fika"}}
