"""The item page: who may open it, and how it answers anything but GET."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from tests import factories
from tests.items.page import url

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
