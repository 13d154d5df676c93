"""``sync_index --follow`` polls less often after a quiet minute, never so rarely that the list calls it stale.

The loop runs on a fake clock: ``time.sleep`` moves it on, and the passes
report what a test says changed. The waits come from the brief's rule, not
from the code: ``--interval`` while rows change and for the first minute of
quiet, then doubling, never more than ``--idle-interval`` nor a quarter of
``SYNC_STALE_AFTER``; the first change brings ``--interval`` back.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.core.management import call_command

from reviewapp import readmodel
from reviewapp.management.commands import sync_index
from reviewapp.readmodel import sync


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[tuple[float, float]] = []  # (when, how long)

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append((self.now, seconds))
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(sync_index.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(sync_index.time, "sleep", fake.sleep)
    return fake


def _follow(monkeypatch: pytest.MonkeyPatch, clock: Clock, changes_at: set[int], *args: str) -> None:
    """Run the loop for 400 fake seconds; the polls at these (whole) seconds after the start find a change."""
    start = clock.now
    last = [-1.0]

    def poll() -> sync.PassReport:
        # A change accounted made since the last poll: this one finds it.
        now = clock.now - start
        found = any(last[0] < at <= now for at in changes_at)
        last[0] = now
        return sync.PassReport(ran=True, indexed=1 if found else 0)

    monkeypatch.setattr(readmodel, "poll", poll)
    monkeypatch.setattr(readmodel, "reconcile", lambda: readmodel.PassReport(ran=True))
    call_command("sync_index", "--follow", "--interval", "2", "--max-seconds", "400", *args)


def _waits(clock: Clock, start: float, end: float) -> list[float]:
    return [seconds for when, seconds in clock.sleeps if start <= when - 1000.0 < end]


def test_a_quiet_minute_slows_the_polls_to_the_idle_interval_and_a_change_brings_the_interval_back(
    monkeypatch: pytest.MonkeyPatch, clock: Clock, settings: Any
) -> None:
    settings.SYNC_STALE_AFTER = 60
    _follow(monkeypatch, clock, {0, 200})

    assert set(_waits(clock, 0, 60)) == {2.0}  # the first quiet minute: every 2 s
    quiet = _waits(clock, 60, 200)
    assert quiet == sorted(quiet)  # then longer and longer ...
    assert quiet[0] > 2.0
    assert max(quiet) == 10.0  # ... up to --idle-interval's 10 s
    assert quiet.count(10.0) > len(quiet) / 2
    # The change at 200 s is read within 10 s, and the polls are back to every 2 s at once, for a minute.
    found_at = next(when - 1000.0 for when, _ in clock.sleeps if when - 1000.0 >= 200)
    assert found_at <= 210
    assert set(_waits(clock, found_at, found_at + 60)) == {2.0}
    assert len(clock.sleeps) < 400 / 2 * 0.75  # fewer polls than a fixed 2 s would make


def test_the_idle_wait_stays_well_inside_sync_stale_after(
    monkeypatch: pytest.MonkeyPatch, clock: Clock, settings: Any
) -> None:
    settings.SYNC_STALE_AFTER = 20
    _follow(monkeypatch, clock, set(), "--idle-interval", "300")

    assert max(seconds for _, seconds in clock.sleeps) <= 20 / 4
    # From one poll to the next, never as long as SYNC_STALE_AFTER: the list never calls it stale.
    starts = [when for when, _ in clock.sleeps]
    assert max(b - a for a, b in itertools.pairwise(starts)) < 20
