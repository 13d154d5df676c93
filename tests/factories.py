"""Test data builders with sequence-numbered values."""

from __future__ import annotations

import itertools
from typing import Any

from django.contrib.auth.models import Group, User

from reviewapp import roles
from reviewapp.models import Company, InboxItem

_seq = itertools.count(1)

PASSWORD = "correct-horse-battery"


def make_user(role: str | None = None, **extra: Any) -> User:
    n = next(_seq)
    user = User.objects.create_user(username=extra.pop("username", f"user{n}"), password=PASSWORD, **extra)
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    return user


def make_company(**extra: Any) -> Company:
    n = next(_seq)
    values: dict[str, Any] = {"name": f"Företag {n} AB", "organisation_number": f"55{n:08d}"}
    values.update(extra)
    return Company.objects.create(**values)


def make_item(company: Company | None = None, **extra: Any) -> InboxItem:
    n = next(_seq)
    values: dict[str, Any] = {
        "company": company or make_company(),
        "source": "whatsapp",
        "extracted_data": {
            "supplier": {"name": f"Leverantör {n}"},
            "invoice": {"invoiceDate": "2026-11-20", "currency": "SEK"},
            "totals": {"total": 100 + n, "vatAmount": 12},
        },
        "channel_context": {"channel": "whatsapp"},
        "whatsapp_message_id": f"wamid.{n}",
    }
    values.update(extra)
    return InboxItem.objects.create(**values)


ROLE_NAMES = (roles.BOOKKEEPER, roles.SUPPORT, roles.QA)
