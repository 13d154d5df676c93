"""The read model follows accounted's table: polls, the overlap, reconcile, poison rows, the lock."""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid

import pytest
from django.db import connections
from django.test import Client

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import states
from reviewapp.models import IndexedItem, SyncState
from reviewapp.readmodel import sync
from tests import factories

MOVED = {
    "channel": "whatsapp",
    "pending_question": {"type": "context", "asked_at": "2026-11-01T10:00:00.000Z", "status": "moved_to_app"},
}


def _sql(statement: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


def _insert_raw(  # type: ignore[no-untyped-def]
    company, *, channel_context_text: str = '{"channel": "whatsapp"}', updated_at=None
) -> uuid.UUID:
    """An item as another program inserts it: plain SQL, JSON as text."""
    rows = _sql(
        """INSERT INTO public.invoice_inbox_items
               (user_id, company_id, source, extracted_data, channel_context, updated_at)
           VALUES (%s, %s, 'whatsapp', '{}'::jsonb, %s::jsonb, COALESCE(%s, now())) RETURNING id""",
        [company.created_by, company.id, channel_context_text, updated_at],
    )
    return rows[0][0]  # type: ignore[return-value]


@pytest.fixture
def company(db):  # type: ignore[no-untyped-def]
    return factories.make_company()


def test_the_first_poll_indexes_every_row_and_sets_the_watermark(company) -> None:  # type: ignore[no-untyped-def]
    ids = [factories.make_item(company, indexed=False).id for _ in range(3)]
    assert not IndexedItem.objects.exists()

    report = sync.poll()

    assert report.ran
    assert report.indexed == 3
    assert set(IndexedItem.objects.values_list("pk", flat=True)) == set(ids)
    assert SyncState.objects.get().watermark is not None


@pytest.mark.django_db(transaction=True)
def test_a_plain_sql_change_by_another_program_reaches_the_list_after_the_next_poll(company) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(company)
    sync.poll()
    assert not IndexedItem.objects.get(pk=item.id).state_needs_answer

    _sql(
        "UPDATE public.invoice_inbox_items SET channel_context = %s::jsonb WHERE id = %s",
        [json.dumps(MOVED), item.id],
    )
    sync.poll()

    row = IndexedItem.objects.get(pk=item.id)
    assert row.state_needs_answer
    assert row.open_question_type == "context"


def test_a_row_that_commits_late_within_the_overlap_is_still_seen(company) -> None:  # type: ignore[no-untyped-def]
    sync.poll()
    state = SyncState.objects.get()
    # A transaction that began 30 s before the watermark and commits now.
    late = _insert_raw(company, updated_at=state.watermark - dt.timedelta(seconds=30))

    sync.poll()

    assert IndexedItem.objects.filter(pk=late).exists()


def test_reconcile_finds_what_polls_cannot_see_and_drops_deleted_rows(company) -> None:  # type: ignore[no-untyped-def]
    kept = factories.make_item(company)
    deleted = factories.make_item(company)
    sync.poll()
    state = SyncState.objects.get()
    # Older than the overlap: no poll reads it again.
    hidden = _insert_raw(company, updated_at=state.watermark - sync.OVERLAP - dt.timedelta(minutes=5))
    _sql("DELETE FROM public.invoice_inbox_items WHERE id = %s", [deleted.id])
    sync.poll()
    assert not IndexedItem.objects.filter(pk=hidden).exists()

    report = sync.reconcile()

    assert report.indexed == 1
    assert report.removed == 1
    assert set(IndexedItem.objects.values_list("pk", flat=True)) == {kept.id, hidden}


def test_reconcile_follows_a_company_rename(company) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(company)
    _sql("UPDATE public.companies SET name = 'Nytt Namn AB' WHERE id = %s", [company.id])

    sync.reconcile()

    assert IndexedItem.objects.get(pk=item.id).company_name == "Nytt Namn AB"


def _menu(client: Client) -> list[tuple[str, str]]:
    """The list page's company menu: (value, label) of each company."""
    body = client.get("/", {"state": "denied"}).content.decode()
    select = body[body.index('<select name="company"') : body.index("</select>", body.index('<select name="company"'))]
    return re.findall(r'<option value="([0-9a-f-]{36})"[^>]*>([^<]*)</option>', select)


def test_each_poll_brings_accounteds_companies_to_the_list_menu_and_rows(company, bookkeeper_client) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(company)
    added = _sql(
        """INSERT INTO public.companies (name, entity_type, created_by)
           VALUES ('Ny Kund AB', 'aktiebolag', %s) RETURNING id""",
        [company.created_by],
    )[0][0]
    assert str(added) not in dict(_menu(bookkeeper_client))  # accounted wrote it; no pass has read it yet

    sync.poll()
    assert (str(added), "Ny Kund AB") in _menu(bookkeeper_client)

    _sql("UPDATE public.companies SET name = 'Omdöpt AB' WHERE id = %s", [company.id])
    _sql("UPDATE public.companies SET archived_at = now() WHERE id = %s", [added])
    sync.poll()
    assert _menu(bookkeeper_client) == [(str(added), "Ny Kund AB (archived)"), (str(company.id), "Omdöpt AB")]
    # The rows take the new name at the same poll, not at the next reconcile.
    assert IndexedItem.objects.get(pk=item.id).company_name == "Omdöpt AB"
    # A company the menu offers filters the list; one it does not is an error under the field.
    assert f'value="{added}" selected' in bookkeeper_client.get("/", {"company": str(added)}).content.decode()
    assert "Select a valid choice" in bookkeeper_client.get("/", {"company": str(uuid.uuid4())}).content.decode()


@pytest.mark.parametrize(
    ("poison", "reason"),
    [
        ("[" * 10_000 + "]" * 10_000, "nested too deep"),
        ('{"channel": "whatsapp", "n": ' + "9" * 5_000 + "}", "digits"),
    ],
    ids=["nested-10000-deep", "5000-digit-number"],
)
def test_a_row_python_cannot_decode_is_indexed_as_malformed_and_the_rest_still_are(company, poison, reason) -> None:  # type: ignore[no-untyped-def]
    good = factories.make_item(company, indexed=False, channel_context=MOVED)
    bad = _insert_raw(company, channel_context_text=poison)

    report = sync.poll()

    assert report.indexed == 2
    assert IndexedItem.objects.get(pk=good.id).state_needs_answer
    row = IndexedItem.objects.get(pk=bad)
    assert row.state_malformed
    assert reason in row.malformed_reason
    assert row.malformed_reason.startswith("channel_context: ")


def test_a_poison_row_breaks_no_page(company, support_client: Client) -> None:  # type: ignore[no-untyped-def]
    factories.make_item(company)
    bad = _insert_raw(company, channel_context_text="[" * 10_000 + "]" * 10_000)
    sync.poll()

    for url in ("/", "/?state=malformed", "/api/items", f"/items/{bad}/", f"/api/items/{bad}"):
        assert support_client.get(url).status_code == 200, url
    # And the bad row is shown as malformed, with the reason, where a person looks for it.
    assert f"/items/{bad}/" in support_client.get("/?state=malformed").content.decode()
    assert "channel_context: nested too deep to read" in support_client.get(f"/items/{bad}/").content.decode()
    assert support_client.get(f"/api/items/{bad}").json()["malformed"] == "channel_context: nested too deep to read"


def test_a_booked_item_is_booked_and_never_needs_an_answer(company) -> None:  # type: ignore[no-untyped-def]
    entry = _sql("INSERT INTO public.journal_entries (company_id) VALUES (%s) RETURNING id", [company.id])[0][0]
    item = factories.make_item(company, channel_context=MOVED, created_journal_entry_id=entry)

    row = IndexedItem.objects.get(pk=item.id)

    assert row.state_booked
    assert not row.state_needs_answer
    assert states.BOOKED in row.state_keys


def test_a_poll_skips_its_turn_while_another_process_holds_the_lock(company) -> None:  # type: ignore[no-untyped-def]
    factories.make_item(company, indexed=False)
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [sync.LOCK_KEY])
        assert sync.poll() == sync.PassReport(ran=False)
        assert not IndexedItem.objects.exists()
    finally:
        # The server ends a closed session a moment later; unlock first.
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock_all()")
        other.close()
    assert sync.poll().indexed == 1


def test_an_item_indexed_right_after_a_write_shows_the_write_without_a_poll(company) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(company)
    _sql(
        "UPDATE public.invoice_inbox_items SET channel_context = %s::jsonb WHERE id = %s", [json.dumps(MOVED), item.id]
    )

    sync.index_items([item.id])

    assert IndexedItem.objects.get(pk=item.id).state_needs_answer


def test_an_item_deleted_in_accounted_leaves_the_index_when_indexed_by_id(company) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(company)
    _sql("DELETE FROM public.invoice_inbox_items WHERE id = %s", [item.id])

    sync.index_items([item.id])

    assert not IndexedItem.objects.filter(pk=item.id).exists()


def test_a_release_that_changes_the_rules_re_indexes_every_row_once(company) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(company, channel_context=MOVED)
    sync.poll()
    # Indexed by an older release, whose search text did not hold the note.
    IndexedItem.objects.filter(pk=item.id).update(search_text="")
    SyncState.objects.update(rules_version=sync.RULES_VERSION - 1)

    report = sync.poll()

    assert report.indexed == 1
    assert SyncState.objects.get().rules_version == sync.RULES_VERSION
    assert IndexedItem.objects.get(pk=item.id).search_text != ""
