"""A whole-table re-index builds beside the list and swaps in at the end; progress is shown and logged."""

from __future__ import annotations

import io
import logging
import threading
from typing import Any

import pytest
from django.db import connections
from django.test import Client
from django.urls import reverse

from reviewapp.inbox.counts import tally_counts
from reviewapp.inbox.query import ListQuery
from reviewapp.models import IndexedItem, SyncState
from reviewapp.readmodel import bulk as sync_bulk
from reviewapp.readmodel import copying, rows, sync
from tests import factories
from tests.inbox.helpers import note, pending, raw_update_context

WAIT = 30  # seconds; a test that hangs fails instead


def _needs_answer_count(client: Client) -> int:
    return int(client.get(reverse("api_items"), {"state": "needs_answer"}).json()["count"])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("swap_from", [0, 1_000_000], ids=["swapped", "merged"])
def test_the_list_serves_the_old_rows_during_a_re_index_and_the_new_ones_after(
    qa_client: Client, monkeypatch: pytest.MonkeyPatch, swap_from: int
) -> None:
    company = factories.make_company()
    items = [factories.make_item(company, channel_context=note(f"fika {n}")) for n in range(4)]
    sync.poll()
    # accounted's rows change, and a new release re-derives every row: one row per batch.
    for item in items:
        raw_update_context(item.id, pending("moved_to_app"))
    SyncState.objects.update(rules_version=sync.RULES_VERSION - 1)
    monkeypatch.setattr(sync, "BATCH", 1)
    monkeypatch.setattr(sync_bulk, "BATCH", 1)
    monkeypatch.setattr(copying, "BATCH", 1)
    monkeypatch.setattr(sync_bulk, "SWAP_FROM", swap_from)  # a new table swapped in, or a merge

    halfway, resume = threading.Event(), threading.Event()
    derive = rows.derive
    calls = 0

    def pausing(rows: Any, failures: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 3:  # two rows are done: hold the pass here
            halfway.set()
            assert resume.wait(WAIT)
        return derive(rows, failures)

    monkeypatch.setattr(rows, "derive", pausing)
    reports: list[sync.PassReport] = []

    def reindex() -> None:
        try:
            reports.append(sync.poll())
        finally:
            connections.close_all()

    worker = threading.Thread(target=reindex)
    worker.start()
    try:
        assert halfway.wait(WAIT)
        # Mid-way: the list still shows what it showed before, row for row and count for count.
        assert _needs_answer_count(qa_client) == 0
        assert qa_client.get(reverse("api_items")).json()["count"] == 4
        assert not IndexedItem.objects.filter(state_needs_answer=True).exists()
    finally:
        resume.set()
        worker.join(WAIT)
    assert reports
    assert reports[0].indexed == 4
    assert _needs_answer_count(qa_client) == 4
    assert IndexedItem.objects.filter(state_needs_answer=True).count() == 4


@pytest.mark.parametrize("swap_from", [0, 1_000_000], ids=["swapped", "merged"])
def test_after_a_re_index_the_counts_and_their_triggers_are_right(
    company: Any, swap_from: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sync_bulk, "SWAP_FROM", swap_from)
    moved = [factories.make_item(company, channel_context=pending("moved_to_app")) for _ in range(3)]
    factories.make_item(company, channel_context=note("kaffe"))
    sync.poll()
    raw_update_context(moved[0].id, note("besvarad"))
    SyncState.objects.update(rules_version=sync.RULES_VERSION - 1)

    sync.poll()  # a re-index: a new table swapped in, or merged into the live one

    assert tally_counts(ListQuery(states=("needs_answer",))).total == 2
    assert tally_counts(ListQuery()).total == 4
    # The swapped-in table keeps the tally's triggers: a later write still counts.
    raw_update_context(moved[1].id, note("besvarad"))
    sync.index_items([moved[1].id])
    assert tally_counts(ListQuery(states=("needs_answer",))).total == 1
    assert IndexedItem.objects.filter(state_needs_answer=True).count() == 1


def test_a_re_index_keeps_every_index_of_the_read_model(company: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sync_bulk, "SWAP_FROM", 0)
    factories.make_item(company)
    table = IndexedItem._meta.db_table

    def indexes() -> list[tuple[str, str]]:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s ORDER BY 1", [table])
            return list(cursor.fetchall())

    before = indexes()
    SyncState.objects.update(rules_version=sync.RULES_VERSION - 1)
    sync.poll()

    assert indexes() == before
    assert any(name == "index_search_trgm_idx" for name, _ in before)
    with connections["default"].cursor() as cursor:  # the replaced table, set aside in the swap, is gone
        cursor.execute("SELECT count(*) FROM pg_class WHERE relname LIKE %s", [f"{table}_old%"])
        assert cursor.fetchone()[0] == 0


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_rows_per_second_and_time_left_on_a_terminal_and_logs_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sync_bulk, "PROGRESS_EVERY", sync_bulk.dt.timedelta(0))
    terminal = _Terminal()
    progress = sync_bulk.Progress("re-index", 1_000, stream=terminal)
    with caplog.at_level(logging.INFO, logger="reviewapp.readmodel.sync"):
        progress.step(250)
        progress.finish()

    shown = terminal.getvalue()
    assert "re-index: 250 of about 1,000 rows" in shown
    assert "rows/s" in shown
    assert "s left" in shown
    assert shown.startswith("\r")  # one line that rewrites itself
    logged = [r.getMessage() for r in caplog.records if r.name == "reviewapp.readmodel.sync"]
    assert any("250 of about 1,000 rows" in line and "s left" in line for line in logged)


def test_progress_prints_nothing_when_stdout_is_not_a_terminal(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sync_bulk, "PROGRESS_EVERY", sync_bulk.dt.timedelta(0))
    pipe = io.StringIO()
    with caplog.at_level(logging.INFO, logger="reviewapp.readmodel.sync"):
        progress = sync_bulk.Progress("index", 10, stream=pipe)
        progress.step(5)
    assert pipe.getvalue() == ""
    assert any("5 of about 10 rows" in r.getMessage() for r in caplog.records)
