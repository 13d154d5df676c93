"""``manage.py sync_index [--follow] [--interval S] [--reconcile-every S]``: keep the read model in step.

One pass by default (the first one indexes everything, and so does the
first after a release changed ``sync.RULES_VERSION``: it builds a new table
beside the list and swaps it in when done, printing rows/s and the time left
on a terminal and logging them; see ``reviewapp.sync_bulk``). With ``--follow`` it
loops: a poll every ``--interval`` seconds (2 by default) and a reconcile
(deleted rows, company renames, anything a poll could not see) every
``--reconcile-every`` seconds. Any number of hosts may run it: each pass
takes an advisory lock, so one works and the others skip that round.

When a pass fails (a database restarts, the network drops), the loop keeps
going and backs off: it waits 1 s, then 2, 4, ... up to 60 s between
tries, logging one warning per try, and goes back to its interval as soon
as a pass succeeds. A long outage thus costs one line a minute in the log,
not one every two seconds, and nobody has to restart the sync after it.

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

from django.core.management.base import BaseCommand, CommandParser
from django.db import connections

from reviewapp import sync

log = logging.getLogger(__name__)

BACKOFF_FIRST: Final = 1.0  # seconds before the first retry after a failed pass
BACKOFF_MAX: Final = 60.0  # the longest wait between retries during an outage
ERROR_MAX_CHARS: Final = 300


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


class Command(BaseCommand):
    help = "Index accounted's inbox items into the review database (the list's read model)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--follow", action="store_true", help="keep polling until stopped")
        parser.add_argument("--interval", type=float, default=2.0, help="seconds between polls (default 2)")
        parser.add_argument(
            "--reconcile-every", type=float, default=300.0, help="seconds between full reconciles (default 300)"
        )
        parser.add_argument("--reconcile", action="store_true", help="also reconcile in a single pass")
        # For tests and benchmarks: stop after this many seconds (0: never).
        parser.add_argument("--max-seconds", type=float, default=0.0, help=argparse.SUPPRESS)

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["follow"]:
            self._report("poll", sync.poll())
            if options["reconcile"]:
                self._report("reconcile", sync.reconcile())
            return
        started = time.monotonic()
        deadline = started + options["max_seconds"] if options["max_seconds"] else None
        next_reconcile = 0.0
        backoff = Backoff()
        while deadline is None or time.monotonic() < deadline:
            try:
                self._report("poll", sync.poll(), quiet=True)
                if time.monotonic() >= next_reconcile:
                    self._report("reconcile", sync.reconcile(), quiet=True)
                    next_reconcile = time.monotonic() + options["reconcile_every"]
            except Exception as error:  # a lost connection or a restart of either database must not end the loop
                with contextlib.suppress(Exception):  # a broken connection may fail to close, too
                    connections.close_all()  # the next try connects afresh
                wait = backoff.failed(time.monotonic())
                failing_for = time.monotonic() - (backoff.failing_since or 0.0)
                log.warning(
                    "sync_index: pass failed (%s); failing for %d s, retrying in %g s",
                    _describe(error),
                    failing_for,
                    wait,
                )
            else:
                wait = options["interval"]
                lasted = backoff.succeeded(time.monotonic())
                if lasted is not None:
                    log.warning("sync_index: the databases answer again after %d s of failed passes; resumed", lasted)
            if deadline is not None:
                wait = max(0.0, min(wait, deadline - time.monotonic()))
            time.sleep(wait)

    def _report(self, what: str, report: sync.PassReport, *, quiet: bool = False) -> None:
        if not report.ran:
            if not quiet:
                self.stdout.write(f"{what}: another process is syncing; skipped")
            return
        if quiet and not (report.indexed or report.removed or report.resettled):
            return
        line = f"{what}: {report.indexed} indexed, {report.removed} removed"
        # Only a poll re-settles; a reconcile's line stays as it was.
        self.stdout.write(f"{line}, re-settled {report.resettled}" if what == "poll" else line)
