from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connections

from reviewapp.routers import BOOKKEEPING_DB


@pytest.fixture
def committed_bookkeeping(transactional_db: None) -> Iterator[None]:
    """For tests whose writes commit: removes what they added to accounted's tables.

    A test that needs real commits (so each plain-SQL UPDATE gets its own
    ``now()`` in accounted's ``updated_at`` trigger, as it does in
    production, and ``index.poll`` sees it move) runs with
    ``transaction=True``. Django then flushes the review database, but not
    accounted's: its tables are unmanaged. Deleting the companies the test
    created takes their items, journal entries and supplier invoices with
    them (ON DELETE CASCADE); then their owners in ``auth.users``.
    """
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT coalesce(array_agg(id), '{}') FROM public.companies")
        companies = cursor.fetchone()[0]
        cursor.execute("SELECT coalesce(array_agg(id), '{}') FROM auth.users")
        users = cursor.fetchone()[0]
    yield
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("DELETE FROM public.companies WHERE NOT (id = ANY(%s::uuid[]))", [companies])
        cursor.execute("DELETE FROM auth.users WHERE NOT (id = ANY(%s::uuid[]))", [users])
