"""A page loads the signed-in user, their roles and their permissions in one query."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.db import connections
from django.test.utils import CaptureQueriesContext

from reviewapp.core import roles
from tests import factories

# Django's auth tables; the list's rows also join auth_user (who is answering
# each row), which is not a question about the signed-in user.
AUTH_TABLES = re.compile(r'\b"?auth_(user|group|permission)')


def auth_queries(client: Any, path: str) -> list[str]:
    with CaptureQueriesContext(connections["default"]) as queries:
        response = client.get(path)
    assert response.status_code == 200
    return [
        q["sql"]
        for q in queries.captured_queries
        if AUTH_TABLES.search(q["sql"]) and "reviewapp_indexeditem" not in q["sql"]
    ]


@pytest.mark.django_db
def test_a_bookkeepers_list_page_asks_the_auth_tables_once(bookkeeper_client) -> None:
    assert len(auth_queries(bookkeeper_client, "/")) == 1


@pytest.mark.django_db
def test_the_header_shows_the_roles_and_the_server_checks_permissions_from_that_one_query(client) -> None:
    user = factories.make_user(roles.BOOKKEEPER, username="bo")
    user.groups.add(Group.objects.get(name=roles.QA))
    client.force_login(user)
    body = client.get("/").content.decode()
    assert re.findall(r'<span class="role-badge">([^<]+)</span>', body) == ["Bookkeeper", "QA"]
    assert client.get("/preview/").status_code == 200  # QA's permission, through the group
    user.groups.remove(Group.objects.get(name=roles.QA))
    assert client.get("/preview/").status_code == 403  # taken away: the next request knows


@pytest.mark.django_db
def test_a_permission_given_to_the_user_directly_counts(client) -> None:
    user = factories.make_user(roles.BOOKKEEPER, username="bo")
    client.force_login(user)
    assert client.get("/preview/").status_code == 403
    user.user_permissions.add(Permission.objects.get(codename="use_preview", content_type__app_label="reviewapp"))
    assert client.get("/preview/").status_code == 200
