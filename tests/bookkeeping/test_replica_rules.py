"""The replica keeps accounted's rules that other tests lean on: row security and updated_at.

The suite runs every answer and sync test against this replica, so a rule the
replica lost (a policy that lets a viewer write, an updated_at that stops
moving) would let those tests pass against a database accounted does not have.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connections

from reviewapp.bookkeeping.models import ProcessingHistory
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from tests import factories

pytestmark = pytest.mark.django_db(databases="__all__")


@contextmanager
def as_app_user(user_id: uuid.UUID) -> Iterator[Any]:
    """A cursor acting as Supabase's ``authenticated`` role for ``user_id`` (a JWT's subject)."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SAVEPOINT as_app_user")
        cursor.execute("SET LOCAL ROLE authenticated")
        cursor.execute("SELECT set_config('request.jwt.claim.sub', %s, true)", [str(user_id)])
        try:
            yield cursor
        finally:
            cursor.execute("ROLLBACK TO SAVEPOINT as_app_user")


def member(company: Any, role: str) -> uuid.UUID:
    user_id = factories.make_auth_user()
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "INSERT INTO public.company_members (company_id, user_id, role) VALUES (%s, %s, %s)",
            [company.pk, user_id, role],
        )
    return user_id


def change_note(cursor: Any, item_id: uuid.UUID) -> int:
    cursor.execute(
        "UPDATE public.invoice_inbox_items SET error_message = 'checked by hand' WHERE id = %s",
        [item_id],
    )
    return int(cursor.rowcount)


def visible_items(cursor: Any) -> set[uuid.UUID]:
    cursor.execute("SELECT id FROM public.invoice_inbox_items")
    return {row[0] for row in cursor.fetchall()}


def test_members_see_their_companys_items_and_nobody_elses() -> None:
    company, other = factories.make_company(), factories.make_company()
    ours = factories.make_item(company)
    factories.make_item(other)
    viewer = member(company, "viewer")
    with as_app_user(viewer) as cursor:
        assert visible_items(cursor) == {ours.pk}


def test_a_viewer_cannot_change_an_item_and_an_admin_can() -> None:
    company = factories.make_company()
    item = factories.make_item(company)
    with as_app_user(member(company, "viewer")) as cursor:
        assert change_note(cursor, item.pk) == 0
    with as_app_user(member(company, "admin")) as cursor:
        assert change_note(cursor, item.pk) == 1


def test_a_member_cannot_move_an_item_into_a_company_they_may_only_view() -> None:
    company, viewed = factories.make_company(), factories.make_company()
    item = factories.make_item(company)
    writer = member(company, "member")
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "INSERT INTO public.company_members (company_id, user_id, role) VALUES (%s, %s, 'viewer')",
            [viewed.pk, writer],
        )
    with as_app_user(writer) as cursor, pytest.raises(Exception, match="row-level security"):
        cursor.execute("UPDATE public.invoice_inbox_items SET company_id = %s WHERE id = %s", [viewed.pk, item.pk])


def test_the_chat_messages_are_for_the_service_role_only() -> None:
    company = factories.make_company()
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "INSERT INTO public.whatsapp_messages (direction, message_type, body_text)"
            " VALUES ('inbound', 'text', 'hej')"
        )
    with as_app_user(member(company, "owner")) as cursor:
        cursor.execute("SELECT count(*) FROM public.whatsapp_messages")
        assert cursor.fetchone()[0] == 0
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT count(*) FROM public.whatsapp_messages")
        assert cursor.fetchone()[0] == 1


@pytest.mark.parametrize(
    ("table", "trigger"),
    [
        ("companies", "update_companies_updated_at"),
        ("suppliers", "update_suppliers_updated_at"),
        ("document_attachments", "update_document_attachments_updated_at"),
        ("whatsapp_phone_links", "update_whatsapp_phone_links_updated_at"),
        ("whatsapp_conversations", "update_whatsapp_conversations_updated_at"),
        ("whatsapp_messages", "update_whatsapp_messages_updated_at"),
        ("invoice_inbox_items", "invoice_inbox_items_updated_at"),
    ],
)
def test_every_update_stamps_updated_at_under_accounteds_trigger_name(table: str, trigger: str) -> None:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT p.proname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid"
            " WHERE t.tgrelid = %s::regclass AND t.tgname = %s AND NOT t.tgisinternal",
            [f"public.{table}", trigger],
        )
        assert cursor.fetchall() == [("update_updated_at_column",)]


def test_the_item_history_names_every_aggregate_type_accounted_allows() -> None:
    """The history names every type to use accounted's index: a type left out would hide its events."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE conrelid = 'public.processing_history'::regclass AND contype = 'c'"
            " AND pg_get_constraintdef(oid) LIKE '%%aggregate_type%%'"
        )
        [definition] = [row[0] for row in cursor.fetchall()]
    allowed = set(re.findall(r"'(\w+)'::text", definition))
    assert allowed == set(ProcessingHistory.AGGREGATE_TYPES)
