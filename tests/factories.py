"""Test data builders with sequence-numbered values.

Items are written to accounted's tables (the test replica) the way the
intake writes them, then indexed at once, as ``sync_index`` would a moment
later, so a test can open the list straight away.
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any

from django.contrib.auth.models import Group, User
from django.db import connections

from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import roles
from reviewapp.readmodel import sync

_seq = itertools.count(1)

PASSWORD = "correct-horse-battery"


def make_user(role: str | None = None, **extra: Any) -> User:
    n = next(_seq)
    user = User.objects.create_user(username=extra.pop("username", f"user{n}"), password=PASSWORD, **extra)
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    return user


def make_auth_user() -> uuid.UUID:
    """A row in accounted's auth.users (the owner every company and item needs)."""
    n = next(_seq)
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("INSERT INTO auth.users (email) VALUES (%s) RETURNING id", [f"owner{n}@example.se"])
        return cursor.fetchone()[0]


def make_company(**extra: Any) -> Company:
    n = next(_seq)
    values: dict[str, Any] = {
        "name": f"Företag {n} AB",
        "entity_type": "aktiebolag",
        "created_by": make_auth_user(),
    }
    values.update(extra)
    company = Company.objects.create(**values)
    # As the next sync pass would: the list's company menu reads its snapshot.
    sync.refresh_companies()
    return company


def make_item(company: Company | None = None, *, indexed: bool = True, **extra: Any) -> InboxItem:
    n = next(_seq)
    company = company or make_company()
    values: dict[str, Any] = {
        "company": company,
        "user_id": company.created_by,
        "source": "whatsapp",
        "extracted_data": {
            "supplier": {"name": f"Leverantör {n}"},
            "invoice": {"invoiceDate": "2026-11-20", "currency": "SEK"},
            "totals": {"total": 100 + n, "vatAmount": 12},
        },
        "channel_context": {"channel": "whatsapp"},
        "correlation_id": uuid.uuid4(),
    }
    values.update(extra)
    item = InboxItem.objects.create(**values)
    item.refresh_from_db()  # created_at/updated_at come from the database
    if indexed:
        sync.index_items([item.id])
    return item


ROLE_NAMES = (roles.BOOKKEEPER, roles.SUPPORT, roles.QA)
