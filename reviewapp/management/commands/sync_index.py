"""``manage.py sync_index [--follow] [--interval S] [--reconcile-every S]``: keep the list's read model in step.

One pass by default (the first one indexes everything). With ``--follow`` it
loops: a poll every ``--interval`` seconds (2 by default) and a reconcile
(deleted rows, company renames, anything a poll could not see) every
``--reconcile-every`` seconds. Any number of hosts may run it: each pass
takes an advisory lock, so one works and the others skip that round.

Each poll also re-settles app answers whose WhatsApp conversation mark
accounted's sweep undid (``reviewapp.answers.resettle``); its line says how
many: ``poll: 3 indexed, 0 removed, re-settled 1``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import connections

from reviewapp import index


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
            self._report("poll", index.poll())
            if options["reconcile"]:
                self._report("reconcile", index.reconcile())
            return
        started = time.monotonic()
        next_reconcile = 0.0
        while not options["max_seconds"] or time.monotonic() - started < options["max_seconds"]:
            try:
                self._report("poll", index.poll(), quiet=True)
                if time.monotonic() >= next_reconcile:
                    self._report("reconcile", index.reconcile(), quiet=True)
                    next_reconcile = time.monotonic() + options["reconcile_every"]
            except Exception as error:  # a lost connection or a restart of either database must not end the loop
                self.stderr.write(f"sync_index: {error.__class__.__name__}: {error}")
                connections.close_all()
            time.sleep(options["interval"])

    def _report(self, what: str, report: index.PassReport, *, quiet: bool = False) -> None:
        if not report.ran:
            if not quiet:
                self.stdout.write(f"{what}: another process is syncing; skipped")
            return
        if quiet and not (report.indexed or report.removed or report.resettled):
            return
        line = f"{what}: {report.indexed} indexed, {report.removed} removed"
        # Only a poll re-settles; a reconcile's line stays as it was.
        self.stdout.write(f"{line}, re-settled {report.resettled}" if what == "poll" else line)
