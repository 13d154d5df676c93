"""The admin shows items but never writes them: the audit trail cannot be bypassed."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviewapp.models import ClarificationEvent, InboxItem
from tests import factories
from tests.robustness.conftest import lenient, moved, snapshot


@pytest.mark.django_db
def test_a_superuser_cannot_change_an_item_in_the_admin():
    item = moved("context")
    before = snapshot(item)
    staff = lenient(factories.make_user(is_staff=True, is_superuser=True))
    url = reverse("admin:reviewapp_inboxitem_change", args=[item.pk])

    page = staff.get(url)
    response = staff.post(url, {"status": "booked", "extracted_data": '{"supplier": {"name": "forged"}}'})

    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    assert response.status_code == 403
    assert snapshot(item) == before


@pytest.mark.django_db
def test_a_superuser_cannot_delete_an_item_and_its_history_in_the_admin():
    item = moved("context")
    events = ClarificationEvent.objects.filter(item=item).count()
    staff = lenient(factories.make_user(is_staff=True, is_superuser=True))

    response = staff.post(reverse("admin:reviewapp_inboxitem_delete", args=[item.pk]), {"post": "yes"})

    assert response.status_code == 403
    assert InboxItem.objects.filter(pk=item.pk).exists()
    assert ClarificationEvent.objects.filter(item=item).count() == events
