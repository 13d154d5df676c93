"""The admin hides the raw JSON from whoever the app hides it from.

The app and its API show the raw ``channel_context`` only to holders of
``reviewapp.view_raw_context`` (Support, QA). A Bookkeeper made staff, with
the view permissions of the role, saw it in the admin anyway: in the answer
log's payloads (the whole ``channel_context`` before and after each answer).
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from reviewapp.core import roles
from reviewapp.models import ClarificationEvent, CompanyAssignment
from tests import factories
from tests.items.bookkeeping import app_event
from tests.robustness.conftest import lenient, moved

# Keys only the raw JSON has: accounted's intake writes them, no page derives anything from them.
MARKER_BEFORE = "raw-only-before-7f3a9c"
MARKER_AFTER = "raw-only-after-b41e02"


@pytest.fixture
def answered(db):  # type: ignore[no-untyped-def]
    item = moved("context", mail_subject=MARKER_BEFORE)
    event = app_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-08-02T10:00:00+00:00",
        question_type="context",
        payload={
            "before": {"mail_subject": MARKER_BEFORE, "pending_question": {"status": "moved_to_app"}},
            "after": {"mail_subject": MARKER_AFTER, "user_note": "Fika"},
        },
    )
    return item, event


def _staff(role: str, item=None):  # type: ignore[no-untyped-def]
    """A staff user of ``role``, assigned the item's company (Support and QA see every company anyway)."""
    user = factories.make_user(role, is_staff=True)
    if item is not None:
        CompanyAssignment.objects.create(user=user, company_id=item.company_id)
    assert user.has_perm("reviewapp.view_clarificationevent")
    assert user.has_perm("reviewapp.view_indexeditem")
    return user


def _admin_pages(item, event) -> list[str]:  # type: ignore[no-untyped-def]
    return [
        reverse("admin:index"),
        reverse("admin:reviewapp_indexeditem_changelist"),
        reverse("admin:reviewapp_indexeditem_change", args=[item.pk]),
        reverse("admin:reviewapp_clarificationevent_changelist"),
        reverse("admin:reviewapp_clarificationevent_changelist") + "?event_type=" + ClarificationEvent.ANSWERED,
        reverse("admin:reviewapp_clarificationevent_change", args=[event.pk]),
    ]


def test_a_staff_bookkeeper_sees_no_raw_json_on_any_admin_page(answered):  # type: ignore[no-untyped-def]
    item, event = answered
    client = lenient(_staff(roles.BOOKKEEPER, item))
    for url in _admin_pages(item, event):
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert MARKER_BEFORE not in html, url
        assert MARKER_AFTER not in html, url
        assert "mail_subject" not in html, url


def test_a_staff_bookkeeper_still_sees_the_event_itself(answered):  # type: ignore[no-untyped-def]
    item, event = answered
    html = (
        lenient(_staff(roles.BOOKKEEPER, item))
        .get(reverse("admin:reviewapp_clarificationevent_change", args=[event.pk]))
        .content.decode()
    )
    assert ClarificationEvent.ANSWERED in html
    assert str(item.pk) in html


@pytest.mark.parametrize("role", [roles.SUPPORT, roles.QA])
def test_staff_who_may_see_raw_json_see_the_payloads(role, answered):  # type: ignore[no-untyped-def]
    _, event = answered
    response = lenient(_staff(role)).get(reverse("admin:reviewapp_clarificationevent_change", args=[event.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert MARKER_BEFORE in html
    assert MARKER_AFTER in html


def test_the_permission_not_the_group_decides(answered):  # type: ignore[no-untyped-def]
    item, event = answered
    user = _staff(roles.BOOKKEEPER, item)
    user.user_permissions.add(Permission.objects.get(codename="view_raw_context"))
    html = lenient(user).get(reverse("admin:reviewapp_clarificationevent_change", args=[event.pk])).content.decode()
    assert MARKER_AFTER in html


def test_a_huge_payload_is_shown_capped_with_its_size(db):  # type: ignore[no-untyped-def]
    item = moved("context")
    note = "ö" * 3_000_000
    event = app_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-08-02T10:00:00+00:00",
        payload={"before": {}, "after": {"user_note": note}},
    )
    response = lenient(_staff(roles.SUPPORT)).get(reverse("admin:reviewapp_clarificationevent_change", args=[event.pk]))
    assert response.status_code == 200
    assert len(response.content) < 1_000_000
    assert "ö" * 1000 in response.content.decode()
    assert "3,000,0" in response.content.decode() or "30000" in response.content.decode()


def test_the_item_admin_page_of_a_huge_row_is_cut(db) -> None:  # type: ignore[no-untyped-def]
    item = moved(
        "context",
        user_note="ö" * 3_000_000,
        representation={"participants": [{"name": f"P{i} " + "N" * 300} for i in range(10_000)]},
    )
    client = lenient(factories.make_user(is_staff=True, is_superuser=True))
    for url in (
        reverse("admin:reviewapp_indexeditem_changelist"),
        reverse("admin:reviewapp_indexeditem_change", args=[item.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert len(response.content) < 1_000_000, url
    html = client.get(reverse("admin:reviewapp_indexeditem_change", args=[item.pk])).content.decode()
    assert "ö" * 1000 in html
