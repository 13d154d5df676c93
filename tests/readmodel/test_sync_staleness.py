"""The sync says so when it finds the read model older than SYNC_STALE_AFTER (after an outage, say)."""

from __future__ import annotations

import datetime as dt
import logging

import pytest
from django.utils import timezone

from reviewapp.models import SyncState
from reviewapp.readmodel import sync
from tests import factories

pytestmark = pytest.mark.django_db


def _stale_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "reviewapp.readmodel.sync" and r.levelno == logging.WARNING and "read model is" in r.getMessage()
    ]


def test_a_poll_that_finds_the_read_model_older_than_sync_stale_after_logs_a_warning_once(caplog, settings) -> None:  # type: ignore[no-untyped-def]
    factories.make_item(indexed=False)
    sync.poll()
    caplog.set_level(logging.WARNING, logger="reviewapp.readmodel.sync")
    settings.SYNC_STALE_AFTER = 15 * 60
    SyncState.objects.filter(pk=1).update(last_poll_at=timezone.now() - dt.timedelta(minutes=10))
    sync.poll()
    assert _stale_warnings(caplog) == []  # ten minutes is young enough for this setting

    settings.SYNC_STALE_AFTER = 60
    last = timezone.now() - dt.timedelta(minutes=10)
    SyncState.objects.filter(pk=1).update(last_poll_at=last)
    sync.poll()
    sync.poll()  # caught up: nothing more to say

    [warning] = _stale_warnings(caplog)
    assert warning.startswith("the read model is 600 s old (last successful poll at ")
    assert "SYNC_STALE_AFTER is 60 s" in warning
    assert SyncState.objects.get().last_poll_at > last + dt.timedelta(minutes=9)
