"""``manage.py expire_questions [--now ISO] [--batch-size N]``: the 48-hour sweep (see reviewapp.sweep)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp import states, sweep

SHOW_IDS = 20


def _parse_now(value: str) -> dt.datetime:
    parsed = states.parse_iso(value)
    if parsed is None:
        raise CommandError(f"--now must be an ISO 8601 timestamp such as 2026-08-03T09:00:00Z, got {value!r}")
    return parsed


class Command(BaseCommand):
    help = "Move WhatsApp questions open for more than 48 hours to the app. Safe to run from cron every minute."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--now", help="pretend it is this time (ISO 8601; without an offset means UTC)")
        parser.add_argument("--batch-size", type=int, default=sweep.DEFAULT_BATCH_SIZE, help="rows per transaction")

    def handle(self, *args: Any, **options: Any) -> None:
        now = _parse_now(options["now"]) if options["now"] else None
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1")
        result = sweep.expire_questions(now=now, batch_size=options["batch_size"])
        self.stdout.write(f"Expired {len(result.expired)} question(s).")
        if result.unreadable:
            shown = ", ".join(str(pk) for pk in result.unreadable[:SHOW_IDS])
            more = f" and {len(result.unreadable) - SHOW_IDS} more" if len(result.unreadable) > SHOW_IDS else ""
            self.stderr.write(
                f"{len(result.unreadable)} open question(s) have no readable asked_at and were left alone: "
                f"{shown}{more}"
            )
