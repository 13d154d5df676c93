"""``manage.py sync_index [--follow] [--interval S] [--reconcile-every S]``: keep the read model in step.

One pass by default (the first one indexes everything, and so does the
first after a release changed ``readmodel.RULES_VERSION``: it builds a new table
beside the list and swaps it in when done, printing rows/s and the time left
on a terminal and logging them; see ``reviewapp.readmodel.bulk``). With ``--follow`` it
loops: a poll every ``--interval`` seconds (2 by default) and a reconcile
(deleted rows, company renames, anything a poll could not see) every
``--reconcile-every`` seconds. Any number of hosts may run it: each pass
takes an advisory lock, so one works and the others skip that round.

When nothing has changed for ``IDLE_AFTER`` (60 s: no row indexed, removed
or re-settled), the polls slow down: each quiet poll doubles the wait, up to
``--idle-interval`` (10 s by default) and never more than a quarter of
``SYNC_STALE_AFTER``, so the list never calls the read model stale because
the sync was resting. The first poll that finds a change goes back to
``--interval``. An idle poll reads no rows from accounted
(``readmodel.poll``), but it still asks; this asks less often.

When a pass fails (a database restarts, the network drops), the loop keeps
going and backs off: it waits 1 s, then 2, 4, ... up to 60 s between
tries, logging one warning per try, and goes back to its interval as soon
as a pass succeeds. A long outage thus costs one line a minute in the log,
not one every two seconds, and nobody has to restart the sync after it.

With ``SYNC_SOURCE=replication`` a pass drains the subscription's queue, and
the loop waits on the queue's notifications (``replication.Wakeups``) rather
than sleeping: a copied change is drained at once. ``--interval`` then paces
the extras (the overview's copy, the re-settle) and the timed passes. A host
whose pass found the lock held (another host drains, or an answer's
``index_items``) sleeps its wait instead: the holder listens too.

Each poll also re-settles app answers whose WhatsApp conversation mark
accounted's sweep undid (``reviewapp.answers.resettle``); its line says how
many: ``poll: 3 indexed, 0 removed, re-settled 1``.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import time
from typing import Any, Final

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import connections

from reviewapp import readmodel
from reviewapp.readmodel import replication

log = logging.getLogger(__name__)

BACKOFF_FIRST: Final = 1.0  # seconds before the first retry after a failed pass
BACKOFF_MAX: Final = 60.0  # the longest wait between retries during an outage
ERROR_MAX_CHARS: Final = 300
IDLE_AFTER: Final = 60.0  # seconds without a change before the polls slow down
IDLE_INTERVAL: Final = 10.0  # the longest wait between idle polls (--idle-interval's default)
# The idle wait stays under this share of SYNC_STALE_AFTER: a poll, however
# slow, then refreshes the read model's age long before the list calls it stale.
STALE_SHARE: Final = 0.25


def _describe(error: BaseException) -> str:
    """The exception on one line: psycopg's messages span several."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:ERROR_MAX_CHARS]}" if text else type(error).__name__


class Backoff:
    """How long to wait before the next try: nothing while passes succeed, then 1, 2, 4 ... 60 s."""

    def __init__(self, first: float = BACKOFF_FIRST, most: float = BACKOFF_MAX) -> None:
        self.first, self.most = first, most
        self.delay = 0.0
        self.failing_since: float | None = None

    def failed(self, now: float) -> float:
        """One more failed pass: the wait before the next try."""
        if self.failing_since is None:
            self.failing_since = now
            self.delay = self.first
        else:
            self.delay = min(self.delay * 2, self.most)
        return self.delay

    def succeeded(self, now: float) -> float | None:
        """A pass worked: how long the failures lasted (None when there were none)."""
        if self.failing_since is None:
            return None
        lasted = now - self.failing_since
        self.failing_since, self.delay = None, 0.0
        return lasted


class Pace:
    """The wait between polls: ``interval`` while rows change; after ``idle_after`` of quiet, doubling to ``most``."""

    def __init__(self, interval: float, most: float, idle_after: float = IDLE_AFTER) -> None:
        self.interval, self.idle_after = interval, idle_after
        self.most = max(interval, most)
        self.wait = interval
        self.quiet_since: float | None = None

    def next(self, changed: bool, now: float) -> float:
        """The wait after a poll that found a change (``changed``) or nothing, at ``now``."""
        if changed or self.quiet_since is None:  # quiet from the last change found (or the first poll)
            self.quiet_since = now
            self.wait = self.interval
        elif now - self.quiet_since >= self.idle_after:
            self.wait = min(self.wait * 2, self.most)
        return self.wait


def idle_ceiling(asked: float) -> float:
    """``--idle-interval``, but never more than ``STALE_SHARE`` of ``SYNC_STALE_AFTER``."""
    return min(asked, settings.SYNC_STALE_AFTER * STALE_SHARE)


def _changed(report: readmodel.PassReport) -> bool:
    return bool(report.indexed or report.removed or report.resettled)


class Command(BaseCommand):
    help = "Index accounted's inbox items into the review database (the list's read model)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--follow", action="store_true", help="keep polling until stopped")
        parser.add_argument("--interval", type=float, default=2.0, help="seconds between polls (default 2)")
        parser.add_argument(
            "--reconcile-every", type=float, default=300.0, help="seconds between full reconciles (default 300)"
        )
        parser.add_argument(
            "--idle-interval",
            type=float,
            default=IDLE_INTERVAL,
            help=f"the longest wait between polls after {IDLE_AFTER:g} s without a change "
            f"(default {IDLE_INTERVAL:g}; at most a quarter of SYNC_STALE_AFTER)",
        )
        parser.add_argument("--reconcile", action="store_true", help="also reconcile in a single pass")
        # For tests and benchmarks: stop after this many seconds (0: never).
        parser.add_argument("--max-seconds", type=float, default=0.0, help=argparse.SUPPRESS)

    def handle(self, *args: Any, **options: Any) -> None:
        # SYNC_SOURCE=replication: a "poll" drains the subscription's queue and a
        # reconcile compares with its local copy; accounted's table is not read.
        replicated = settings.SYNC_SOURCE == "replication"
        poll = replication.drain if replicated else readmodel.poll
        reconcile = replication.reconcile if replicated else readmodel.reconcile
        if not options["follow"]:
            self._report("poll", poll())
            if options["reconcile"]:
                self._report("reconcile", reconcile())
            return
        started = time.monotonic()
        deadline = started + options["max_seconds"] if options["max_seconds"] else None
        next_reconcile = 0.0
        backoff = Backoff()
        pace = Pace(options["interval"], idle_ceiling(options["idle_interval"]))
        # Replication: the queue's triggers notify, and the loop waits on that instead of
        # sleeping, so a change is drained when it is copied, not at the next interval. The
        # interval still paces the extras (overview copy, re-settle) and the read model's age.
        wakeups = replication.Wakeups() if replicated else None
        next_extras = 0.0
        while deadline is None or time.monotonic() < deadline:
            drained = False
            try:
                if wakeups is not None:
                    extras = time.monotonic() >= next_extras
                    polled = replication.drain(extras=extras)
                    if extras and polled.ran:
                        next_extras = time.monotonic() + options["interval"]
                    drained = polled.ran
                else:
                    polled = poll()
                self._report("poll", polled, quiet=True)
                changed = _changed(polled)
                if time.monotonic() >= next_reconcile:
                    reconciled = reconcile()
                    self._report("reconcile", reconciled, quiet=True)
                    changed = changed or _changed(reconciled)
                    next_reconcile = time.monotonic() + options["reconcile_every"]
            except Exception as error:  # a lost connection or a restart of either database must not end the loop
                drained = False  # back off by the clock, not at the next notification
                with contextlib.suppress(Exception):  # a broken connection may fail to close, too
                    connections.close_all()  # the next try connects afresh
                if wakeups is not None:  # and listens afresh: the old connection may be dead too
                    with contextlib.suppress(Exception):
                        wakeups.close()
                wait = backoff.failed(time.monotonic())
                failing_for = time.monotonic() - (backoff.failing_since or 0.0)
                log.warning(
                    "sync_index: pass failed (%s); failing for %d s, retrying in %g s",
                    _describe(error),
                    failing_for,
                    wait,
                )
            else:
                wait = pace.next(changed, time.monotonic())
                lasted = backoff.succeeded(time.monotonic())
                if lasted is not None:
                    log.warning("sync_index: the databases answer again after %d s of failed passes; resumed", lasted)
            if deadline is not None:
                wait = max(0.0, min(wait, deadline - time.monotonic()))
            if wakeups is not None and drained:
                wakeups.wait(wait)
            else:
                # Polling; or backing off after a failure (a burst of notifications must not hurry
                # a retry); or another host held the lock and drains: each notification would only
                # be another failed try here. The holder listens too, so nothing waits for this host.
                time.sleep(wait)
        if wakeups is not None:
            wakeups.close()

    def _report(self, what: str, report: readmodel.PassReport, *, quiet: bool = False) -> None:
        if not report.ran:
            if not quiet:
                self.stdout.write(f"{what}: another process is syncing; skipped")
            return
        if quiet and not (report.indexed or report.removed or report.resettled):
            return
        line = f"{what}: {report.indexed} indexed, {report.removed} removed"
        # Only a poll re-settles; a reconcile's line stays as it was.
        self.stdout.write(f"{line}, re-settled {report.resettled}" if what == "poll" else line)
