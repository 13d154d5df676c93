"""A review user's account in accounted: set on the user's admin page, checked against accounted's auth.users."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from reviewapp.models import AccountLink, accounted_user_id
from tests import factories
from tests.html import Page

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> Client:
    client = Client()
    client.force_login(factories.make_user(is_staff=True, is_superuser=True))
    return client


def change_url(user: User) -> str:
    return reverse("admin:auth_user_change", args=[user.pk])


def save_link(client: Client, user: User, accounted_id: object) -> Any:
    """The user's admin page saved with ``accounted_id`` in its account-in-accounted row, as a browser posts it."""
    data = {
        "username": user.username,
        "first_name": "",
        "last_name": "",
        "email": "",
        "is_active": "on",
        "date_joined_0": "2026-12-01",
        "date_joined_1": "10:00:00",
        "account_link-TOTAL_FORMS": "1",
        "account_link-INITIAL_FORMS": "0",
        "account_link-MIN_NUM_FORMS": "0",
        "account_link-MAX_NUM_FORMS": "1",
        "account_link-0-id": "",
        "account_link-0-user": str(user.pk),
        "account_link-0-accounted_user_id": str(accounted_id),
        "_save": "Save",
    }
    return client.post(change_url(user), data)


def test_an_admin_links_a_user_to_an_existing_accounted_user(admin_client):
    user = factories.make_user(username="bea")
    own = factories.make_auth_user()

    page = admin_client.get(change_url(user))
    response = save_link(admin_client, user, own)

    assert 'name="account_link-0-accounted_user_id"' in page.content.decode()
    assert response.status_code == 302
    assert accounted_user_id(user) == own
    listed = admin_client.get(reverse("admin:auth_user_changelist")).content.decode()
    assert str(own) in listed


def test_an_id_accounted_does_not_know_is_refused_with_a_message_and_nothing_is_saved(admin_client):
    user = factories.make_user(username="bea")
    unknown = uuid.uuid4()

    response = save_link(admin_client, user, unknown)

    assert response.status_code == 200
    text = " ".join(Page(response.content.decode()).texts(cls="errorlist"))
    assert f"accounted has no user with the id {unknown}" in text
    assert not AccountLink.objects.exists()


def test_two_review_users_cannot_share_one_accounted_user(admin_client):
    own = factories.make_auth_user()
    AccountLink.objects.create(user=factories.make_user(), accounted_user_id=own)
    other = factories.make_user()

    response = save_link(admin_client, other, own)

    assert response.status_code == 200
    assert accounted_user_id(other) is None


def test_saving_a_link_outside_the_admin_checks_the_id_too():
    user = factories.make_user()
    with pytest.raises(ValidationError) as refused:
        AccountLink.objects.create(user=user, accounted_user_id=uuid.uuid4())
    assert "accounted_user_id" in refused.value.message_dict
    assert not AccountLink.objects.exists()


def test_a_link_without_an_id_is_the_app_acting():
    user = factories.make_user()
    AccountLink.objects.create(user=user, accounted_user_id=None)
    assert accounted_user_id(user) is None
