"""``manage.py export_items [--state KEY ...] [--output FILE]``: items as JSON Lines (see reviewapp.transfer)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp import states, transfer


class Command(BaseCommand):
    help = "Export inbox items as JSON Lines in the bookkeeping application's row shape, oldest first."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--state",
            action="append",
            default=[],
            choices=states.STATE_KEYS,
            help="only items in this state; repeat for items in any of several",
        )
        parser.add_argument("--output", help="write to this file (replaced only when complete) instead of stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        rows = transfer.export_rows(state_keys=options["state"])
        if not options["output"]:
            count = transfer.write_jsonl(rows, self.stdout)
            self.stderr.write(f"{count} item(s) exported.")
            return
        target = Path(options["output"])
        # Write beside the target and rename: a reader never sees half a file.
        try:
            fd, temp_name = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".part")
        except OSError as exc:
            raise CommandError(f"cannot write to {target.parent}: {exc.strerror}") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                count = transfer.write_jsonl(rows, out)
            os.replace(temp_name, target)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise
        self.stdout.write(f"{count} item(s) exported to {target}.")
