"""Company assignments (who sees which client) are managed in the admin, by user and company name,
each addition and removal in the admin's history."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.admin.models import ADDITION, DELETION, LogEntry
from django.contrib.auth.models import Permission
from django.test import Client

from reviewapp.bookkeeping.models import Company
from reviewapp.models import CompanyAssignment, SyncState
from tests import factories

ACME = uuid.UUID("00000000-0000-0000-0000-00000000ac4e")
BOLAG = uuid.UUID("00000000-0000-0000-0000-0000000b0149")
LIST = "/admin/reviewapp/companyassignment/"


@pytest.fixture
def companies(db):  # type: ignore[no-untyped-def]
    SyncState.objects.update_or_create(
        pk=1, defaults={"companies": [[str(ACME), "Acme AB", False], [str(BOLAG), "Bolaget i Norr", False]]}
    )


@pytest.fixture
def admin_client(db) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(factories.make_user(username="boss", is_staff=True, is_superuser=True))
    return client


def test_the_assignments_are_listed_by_user_and_company_name(admin_client, companies):
    bea = factories.make_user(username="bea")
    CompanyAssignment.objects.create(user=bea, company_id=ACME)
    response = admin_client.get(LIST)
    assert response.status_code == 200
    body = response.content.decode()
    assert "bea" in body
    assert "Acme AB" in body


def test_the_list_is_searched_by_company_name_and_by_username(admin_client, companies):
    CompanyAssignment.objects.create(user=factories.make_user(username="bea"), company_id=ACME)
    CompanyAssignment.objects.create(user=factories.make_user(username="otto"), company_id=BOLAG)
    by_company = admin_client.get(LIST, {"q": "acme"}).content.decode()
    assert "Acme AB" in by_company
    assert "Bolaget i Norr" not in by_company
    by_user = admin_client.get(LIST, {"q": "otto"}).content.decode()
    assert "Bolaget i Norr" in by_user
    assert "Acme AB" not in by_user


def test_adding_and_removing_an_assignment_is_in_the_admins_history(admin_client, companies):
    bea = factories.make_user(username="bea")
    add = admin_client.get(LIST + "add/").content.decode()
    assert f'<option value="{ACME}">Acme AB</option>' in add
    response = admin_client.post(LIST + "add/", {"user": bea.pk, "company_id": str(ACME)})
    assert response.status_code == 302
    assignment = CompanyAssignment.objects.get(user=bea)
    assert assignment.company_id == ACME
    assert LogEntry.objects.filter(action_flag=ADDITION, object_id=str(assignment.pk)).exists()
    delete = admin_client.post(LIST + f"{assignment.pk}/delete/", {"post": "yes"})
    assert delete.status_code == 302
    assert not CompanyAssignment.objects.exists()
    removal = LogEntry.objects.get(action_flag=DELETION, object_id=str(assignment.pk))
    assert removal.user.username == "boss"


def test_staff_without_the_permission_get_403(companies):
    client = Client()
    client.force_login(factories.make_user(username="staff", is_staff=True))
    assert client.get(LIST).status_code == 403
    assert client.post(LIST + "add/", {"user": 1, "company_id": str(ACME)}).status_code == 403
    assert not CompanyAssignment.objects.exists()


def test_staff_who_may_only_view_cannot_add(companies):
    viewer = factories.make_user(username="viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_companyassignment"))
    client = Client()
    client.force_login(viewer)
    assert client.get(LIST).status_code == 200
    assert client.post(LIST + "add/", {"user": viewer.pk, "company_id": str(ACME)}).status_code == 403
    assert not CompanyAssignment.objects.exists()


def test_before_the_first_sync_the_companies_are_read_from_accounted(admin_client):
    # Created as accounted does, without the sync pass the factory would run.
    company = Company.objects.create(name="Direkt AB", entity_type="aktiebolag", created_by=factories.make_auth_user())
    assert not SyncState.objects.exists()
    add = admin_client.get(LIST + "add/").content.decode()
    assert f'<option value="{company.pk}">Direkt AB</option>' in add
