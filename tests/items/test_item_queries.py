"""The item page's query count does not grow with the item's history."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.items.bookkeeping import (
    accounted_event,
    app_event,
    make_document,
    make_message,
    make_phone_link,
    whatsapp_item,
)
from tests.items.page import url

# --- Queries ------------------------------------------------------------------------


def _queries_for(client: Any, item: InboxItem) -> int:
    with (
        CaptureQueriesContext(connections["default"]) as ours,
        CaptureQueriesContext(connections["bookkeeping"]) as theirs,
    ):
        assert client.get(url(item, "state=needs_answer&sort=question_age")).status_code == 200
    return len(ours) + len(theirs)


@pytest.mark.parametrize("client_fixture", ["bookkeeper_client", "support_client"])
def test_the_page_needs_the_same_few_queries_however_long_the_history(request, client_fixture, company):
    client = request.getfixturevalue(client_fixture)
    phone = make_phone_link(company)
    quiet = whatsapp_item(company, when="2026-07-01T08:00:00Z", wamid="wamid.QUIET", document=make_document(company))
    busy = whatsapp_item(company, when="2026-07-01T08:00:00Z", wamid="wamid.BUSY", document=make_document(company))
    actors = [factories.make_user(roles.BOOKKEEPER) for _ in range(3)]
    for n in range(30):
        make_message(item_id=busy.pk, when=f"2026-07-{1 + n % 28:02d}T10:00:00Z", body=f"svar {n}", phone_link_id=phone)
        app_event(
            busy,
            ClarificationEvent.ANSWERED,
            f"2026-08-{1 + n % 28:02d}T09:00:00Z",
            actor=actors[n % 3],
            payload={"before": {"channel": "whatsapp"}, "after": {"channel": "whatsapp", "user_note": f"n{n}"}},
        )
        accounted_event(busy, ClarificationEvent.ASKED, f"2026-07-{1 + n % 28:02d}T09:00:00Z")
    _queries_for(client, quiet)  # warm per-process caches (content types, permissions)

    assert _queries_for(client, busy) == _queries_for(client, quiet)
    # Session; the user with roles and permissions; the live row with its
    # photo's wamid; the read model's row and its two neighbours; both logs;
    # the conversation; the linked items; the answer panel's log and its
    # reservation; the team's notes, the item's holds and its active hold (issue 38).
    assert _queries_for(client, busy) <= 15
