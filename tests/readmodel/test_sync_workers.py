"""A whole-table pass shared between processes indexes every row exactly once, as one process does.

These tests commit (``transaction=True``): the helper processes connect on
their own and see only what is committed.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import pytest
from django.db import connections
from django.test import Client
from django.urls import reverse

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import IndexedItem, SyncState
from reviewapp.readmodel import bulk as sync_bulk
from reviewapp.readmodel import copying, rows, sync
from reviewapp.readmodel import workers as sync_workers
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

ROWS = 400
WAIT = 60  # seconds for a helper process to start and stage its first rows
# A note long enough that the rows fill a few dozen pages, so that every process gets shares.
NOTE = "kundmöte " * 60


def _fill(company: Any) -> None:
    """``ROWS`` items as the chat intake writes them, in one statement; every tenth waits in the app."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(
            """INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data, channel_context)
               SELECT %s, %s, 'whatsapp', '{"supplier": {"name": "Taxi"}}'::jsonb,
                      CASE WHEN n %% 10 = 0
                           THEN '{"channel": "whatsapp", "pending_question": {"type": "context",
                                  "asked_at": "2026-11-01T09:00:00Z", "status": "moved_to_app"}}'::jsonb
                           ELSE jsonb_build_object('channel', 'whatsapp', 'user_note', %s || n) END
               FROM generate_series(1, %s) AS n""",
            [company.created_by, company.id, NOTE, ROWS],
        )
        cursor.execute("ANALYZE public.invoice_inbox_items")


def _indexed() -> dict[str, tuple[Any, ...]]:
    """Every indexed row's derived columns (not ``indexed_at``), by id."""
    names = [name for name, _ in rows.COLUMNS]
    return {str(row[0]): row for row in IndexedItem.objects.values_list(*names)}


def _wait_until_a_helper_staged_rows(here: int) -> None:
    """Hold this process until a helper has written rows of its own into the new table."""
    deadline = time.monotonic() + WAIT
    with connections["default"].cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT count(*) FROM reviewapp_indexeditem_next")
            if cursor.fetchone()[0] > here:
                return
            time.sleep(0.05)
    raise AssertionError("no helper staged a row")


def _reindex() -> sync.PassReport:
    SyncState.objects.update(rules_version=sync.RULES_VERSION - 1)
    return sync.poll()


@pytest.fixture
def shared(settings: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Two processes, the swap path at any size; counts the rows this process staged itself."""
    settings.SYNC_WORKERS = 2
    monkeypatch.setattr(sync_bulk, "SWAP_FROM", 0)
    staged = {"here": 0}
    stage = copying.stage

    def counting(rows: Any, into: str = copying.STAGING) -> int:
        staged["here"] += len(rows)
        return stage(rows, into)

    monkeypatch.setattr(sync_bulk, "stage", counting)
    monkeypatch.setattr(sync_workers, "stage", counting)
    return staged


def test_two_processes_index_every_row_once_and_as_one_process_does(
    settings: Any, shared: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    company = factories.make_company()
    _fill(company)
    settings.SYNC_WORKERS = 1
    assert _reindex().indexed == ROWS
    alone = _indexed()
    assert shared["here"] == ROWS

    settings.SYNC_WORKERS = 2
    shared["here"] = 0
    monkeypatch.setattr(copying, "BATCH", 20)
    counting = sync_workers.stage

    def waiting_for_the_helper(rows: Any, into: str = copying.STAGING) -> int:
        done = counting(rows, into)
        if shared["here"] == len(rows):  # after this process's first batch
            _wait_until_a_helper_staged_rows(shared["here"])
        return done

    monkeypatch.setattr(sync_bulk, "stage", waiting_for_the_helper)
    monkeypatch.setattr(sync_workers, "stage", waiting_for_the_helper)
    report = _reindex()

    assert report.indexed == ROWS
    assert 0 < shared["here"] < ROWS  # the helper staged the rest
    assert _indexed() == alone
    assert IndexedItem.objects.filter(state_needs_answer=True).count() == ROWS // 10


def test_rows_accounted_rewrites_during_the_pass_are_read_once_from_the_pass_s_snapshot(
    shared: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    company = factories.make_company()
    _fill(company)
    monkeypatch.setattr(copying, "BATCH", 20)
    stage = sync_workers.stage
    rewritten = threading.Event()

    def rewrite_everything() -> None:
        # Another program's UPDATE: every row gets a new version on new pages,
        # perhaps in another process's share.
        try:
            with connections[BOOKKEEPING_DB].cursor() as cursor:
                cursor.execute(
                    "UPDATE public.invoice_inbox_items SET channel_context = "
                    """'{"channel": "whatsapp", "user_note": "omskriven"}'::jsonb"""
                )
        finally:
            connections.close_all()

    def rewriting_first(rows: Any, into: str = copying.STAGING) -> int:
        done = stage(rows, into)
        if not rewritten.is_set():
            rewritten.set()
            writer = threading.Thread(target=rewrite_everything)
            writer.start()
            writer.join(WAIT)
            # A helper reads after the rewrite: in the exported snapshot, or it would see the new versions.
            _wait_until_a_helper_staged_rows(shared["here"])
        return done

    monkeypatch.setattr(sync_bulk, "stage", rewriting_first)
    monkeypatch.setattr(sync_workers, "stage", rewriting_first)
    report = sync.poll()  # the first poll: the whole table

    assert rewritten.is_set()
    # Each row once (the new table's primary key would have refused a second
    # version), and as the pass's snapshot had it: no row says "omskriven" yet.
    assert report.indexed == ROWS
    assert IndexedItem.objects.count() == ROWS
    assert not IndexedItem.objects.filter(search_text__contains="omskriven").exists()
    # The next poll reads the rewritten rows (their updated_at is after the pass began).
    sync.poll()
    assert IndexedItem.objects.filter(search_text__contains="omskriven").count() == ROWS


def test_a_helper_that_dies_fails_the_pass_and_the_list_keeps_its_rows(
    qa_client: Client, shared: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    company = factories.make_company()
    _fill(company)
    sync.poll()
    before = _indexed()
    monkeypatch.setattr(copying, "BATCH", 20)
    stage = sync_workers.stage
    killed: list[int] = []

    def killing_helpers(rows: Any, into: str = copying.STAGING) -> int:
        if not killed:
            for pid in sync_workers.helper_pids():
                os.kill(pid, signal.SIGKILL)  # out of memory, say
                killed.append(pid)
        return stage(rows, into)

    monkeypatch.setattr(sync_bulk, "stage", killing_helpers)
    monkeypatch.setattr(sync_workers, "stage", killing_helpers)
    with pytest.raises(sync_workers.HelperFailed, match="exit code -9"):
        _reindex()

    assert killed
    assert _indexed() == before  # the old table still serves, whole
    response = qa_client.get(reverse("api_items"), {"state": "needs_answer"})
    assert response.json()["count"] == ROWS // 10
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT to_regclass('reviewapp_indexeditem_next')")
        assert cursor.fetchone()[0] is None  # the half-built table is gone

    monkeypatch.setattr(sync_bulk, "stage", stage)
    monkeypatch.setattr(sync_workers, "stage", stage)
    assert sync.poll().indexed == ROWS  # the next pass redoes it (the rules version was not moved on)


@pytest.mark.parametrize(
    ("pages", "count", "expected"),
    [
        (10, 3, [(0, 3), (3, 6), (6, None)]),
        (2, 16, [(0, 1), (1, None)]),
        (0, 4, [(0, None)]),
    ],
)
def test_shares_cover_every_page_once_and_the_last_reaches_the_end(
    pages: int, count: int, expected: list[tuple[int, int | None]]
) -> None:
    assert sync_workers.shares(pages, count) == expected
